// gridjudge's compare rule as a problem package's output validator.
//
// Usage (the problem package format's): validate input answer feedback_dir [flags] < output
// Flags: `exact` (byte for byte, the default) or `ignore_trailing_spaces` (line by line, spaces
// at the ends of lines ignored; whether the last line ends with a newline still counts).
// Exit status 42: accepted; 43: wrong answer, with the first differing line in
// feedback_dir/judgemessage.txt.
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

static std::vector<std::string> lines(const std::string &text) {
    std::vector<std::string> out;
    std::string::size_type start = 0;
    while (start < text.size()) {
        std::string::size_type end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        out.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

static std::string trimmed(std::string line) {
    while (!line.empty() && line.back() == ' ') line.pop_back();
    return line;
}

static std::string shown(const std::string &line) {
    std::string out;
    for (unsigned char c : line) {
        if (out.size() > 200) return out + "...";
        if (c == ' ') out += "\xc2\xb7";  // a middle dot, so that spaces show
        else if (c < 32 || c == 127) {
            char code[8];
            std::snprintf(code, sizeof code, "\\x%02x", c);
            out += code;
        } else out += static_cast<char>(c);
    }
    return out;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        std::cerr << "usage: validate input answer feedback_dir [exact|ignore_trailing_spaces]\n";
        return 1;
    }
    bool trailing = false;
    for (int i = 4; i < argc; ++i) {
        std::string flag = argv[i];
        if (flag == "ignore_trailing_spaces") trailing = true;
        else if (flag != "exact") {
            std::cerr << "unknown flag " << flag << "\n";
            return 1;
        }
    }
    std::ifstream answer_file(argv[2], std::ios::binary);
    if (!answer_file) {
        std::cerr << "cannot read " << argv[2] << "\n";
        return 1;
    }
    std::string answer((std::istreambuf_iterator<char>(answer_file)), std::istreambuf_iterator<char>());
    std::string output((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    bool answer_ends = !answer.empty() && answer.back() == '\n';
    bool output_ends = !output.empty() && output.back() == '\n';
    std::vector<std::string> want = lines(answer), got = lines(output);
    std::string::size_type line = 0;
    while (line < want.size() && line < got.size() &&
           (trailing ? trimmed(want[line]) == trimmed(got[line]) : want[line] == got[line]))
        ++line;
    std::ostringstream message;
    if (line < want.size() || line < got.size()) {
        message << "line " << line + 1 << ": expected "
                << (line < want.size() ? "`" + shown(want[line]) + "`" : "the end of the output")
                << ", got " << (line < got.size() ? "`" + shown(got[line]) + "`" : "the end of the output")
                << "\n";
    } else if (answer_ends != output_ends) {
        message << "the last line " << (answer_ends ? "lacks" : "has") << " a newline at its end\n";
    } else {
        return 42;
    }
    std::ofstream(std::string(argv[3]) + "/judgemessage.txt") << message.str();
    return 43;
}
