#include <stdio.h>
/* Right for small n only: an int overflows. */
int main(void) {
    int n, a = 1, b = 1;
    if (scanf("%d", &n) != 1) return 1;
    for (int i = 0; i < n; i++) { int t = a + b; a = b; b = t; }
    printf("%d\n", a);
    return 0;
}
