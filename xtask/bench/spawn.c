/* The floor `cargo xtask bench` measures the harness against: run CMD once per file named in
 * LIST (one path per line), that file on stdin, stdout and stderr to /dev/null, JOBS at a
 * time, with fork and execvp, and nothing else. The bench compiles it with the machine's C
 * compiler, so that the floor shares no code with the harness.
 *
 * Usage: spawn JOBS LIST CMD [ARG...]; exit status 0, or 1 when an input or a fork failed. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: spawn JOBS LIST CMD [ARG...]\n");
        return 2;
    }
    int jobs = atoi(argv[1]);
    FILE *list = fopen(argv[2], "r");
    int null = open("/dev/null", O_WRONLY);
    if (jobs < 1 || !list || null < 0) {
        return 2;
    }
    char line[4096];
    int running = 0, failed = 0;
    while (!failed && fgets(line, sizeof line, list)) {
        line[strcspn(line, "\n")] = 0;
        if (running == jobs && wait(NULL) > 0) {
            running--;
        }
        int input = open(line, O_RDONLY);
        if (input < 0) {
            failed = 1;
            break;
        }
        pid_t pid = fork();
        if (pid == 0) {
            dup2(input, 0);
            dup2(null, 1);
            dup2(null, 2);
            execvp(argv[3], argv + 3);
            _exit(127);
        }
        close(input);
        if (pid < 0) {
            failed = 1;
        } else {
            running++;
        }
    }
    while (running > 0 && wait(NULL) > 0) {
        running--;
    }
    return failed;
}
