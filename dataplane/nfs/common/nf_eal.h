/* SPDX-License-Identifier: MIT */
/* nf_eal.h: for NFs that keep tables in DPDK libraries (rte_hash, rte_lpm): a private EAL of
 * their own (--in-memory: no files, no sharing), on the CPU nflib put them on. The packet
 * exchange with the vSwitch does not go through it. */

#ifndef NFVP_NF_EAL_H
#define NFVP_NF_EAL_H

#include <sched.h>
#include <stdio.h>

#include <rte_eal.h>

static inline int
nfvp_nf_private_eal(const char *name)
{
	char lcores[32], prog[64];
	char *argv[] = { prog, "--in-memory", "--no-pci", "--no-telemetry", "--log-level",
			 "lib.eal:error", lcores, NULL };
	cpu_set_t set;
	int cpu = 0;

	snprintf(prog, sizeof(prog), "%s", name);
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		while (cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &set))
			cpu++;
	snprintf(lcores, sizeof(lcores), "--lcores=0@%d", cpu);
	if (rte_eal_init((int)(sizeof(argv) / sizeof(argv[0])) - 1, argv) < 0) {
		fprintf(stderr, "%s: EAL (for its tables) did not start: hugepages?\n", name);
		return -1;
	}
	return 0;
}

#endif /* NFVP_NF_EAL_H */
