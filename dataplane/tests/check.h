/* SPDX-License-Identifier: MIT */
/* check.h: the C unit tests' one assertion: count, say where it failed, go on. Each test file
 * ends with printf("%d passed, %d failed\n", passed, failed). */

#ifndef NFVP_CHECK_H
#define NFVP_CHECK_H

#include <stdio.h>

static int passed, failed;

#define CHECK(cond) do { \
	if (cond) { \
		passed++; \
	} else { \
		failed++; \
		fprintf(stderr, "%s:%d: %s: failed: %s\n", __FILE__, __LINE__, __func__, #cond); \
	} \
} while (0)

#endif /* NFVP_CHECK_H */
