/* SPDX-License-Identifier: MIT */
/* nflib_int.h: what nflib's files share: an NF's state (opaque to NFs: nfvp_nf.h) and the
 * hooks between its set-up (init.c) and its run loop (nflib.c). */

#ifndef NFVP_NFLIB_INT_H
#define NFVP_NFLIB_INT_H

#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_ring.h>

#include "nfvp_nf.h"
#include "nfvp_shm.h"

_Static_assert(offsetof(struct nfvp_meta, port) == 6, "nfvp_nf_set_port writes meta.port");

enum idle_mode {
	IDLE_PAUSE,
	IDLE_YIELD,
};

struct nfvp_nf {
	const struct nfvp_nf_ops *ops;
	char name[64];
	void *priv;
	int ctl;
	uint8_t *base; /* the arena, or the private region (isolated) */
	size_t len;
	struct nfvp_slot *slot;
	struct rte_ring *to_nf;
	struct rte_ring *from_nf;
	struct rte_ring *nic_rx;
	uint64_t *bells;       /* shared-ring: the doorbells, else NULL */
	uint32_t explained;    /* drops of this burst the handler gave a reason for */
	enum nfvp_arch arch;
	enum idle_mode idle;
	uint64_t max_pkts;
	double duration_s;
	/* the headers the handler works on: they describe the pool's buffers (shared
	 * architectures) or the NF's private ones (isolated) */
	struct rte_mbuf shells[NFVP_BURST];
	uint8_t *iso_bufs;
};

/* Stop the run loop on SIGINT and SIGTERM (nflib.c). */
void nfvp_nf_catch_signals(void);

#endif /* NFVP_NFLIB_INT_H */
