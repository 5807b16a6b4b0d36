#include <stdio.h>
int main(void) {
    int k;
    while (scanf("%d", &k) == 1 && k != 0) {
        printf("%d\n", 2 * k);
        fflush(stdout);
    }
    return 0;
}
