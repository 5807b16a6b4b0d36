#include <stdio.h>
int main(void) {
    long long n;
    if (scanf("%lld", &n) != 1) return 1;
    printf("%.3e\n", n / 2.0); /* any float formatting within the tolerance is accepted */
    return 0;
}
