#include <stdio.h>
int main(void) {
    int n;
    if (scanf("%d", &n) != 1) return 1;
    printf("%d 1\n", n - 1);
    return 0;
}
