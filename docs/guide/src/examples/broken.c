/* Does not compile: a missing semicolon. */
#include <stdio.h>

int main(void) {
    puts("The Stones")
    return 0;
}
