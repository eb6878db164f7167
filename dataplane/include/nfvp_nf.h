/* SPDX-License-Identifier: MIT */
/* nfvp_nf.h: the API network functions are written against; it hides the exchange
 * architecture, so the same NF code runs in all five. */

#ifndef NFVP_NF_H
#define NFVP_NF_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_mbuf.h>

#include "nfvp_limits.h" /* NFVP_NF_MAX_BURST: the most packets a burst handler is given */

struct nfvp_nf; /* opaque: slot, rings, options */

struct nfvp_nf_ops {
	/* Optional: called once before attaching (the vSwitch sends nothing until it returns),
	 * e.g. to fill tables. 0 or -errno. */
	int (*setup)(struct nfvp_nf *nf);
	/* Handle pkts[0..n), n <= NFVP_NF_MAX_BURST. Reorder so that pkts[0..k) go to the
	 * next hop and return k;
	 * pkts[k..n) are dropped (nflib hands them back to the vSwitch, which frees them: NF
	 * processes never allocate or free mbufs, so they need no mempool and no EAL).
	 * Must not block. Touch only the packet data and the mbuf's length fields: the mbufs
	 * are the NF's own headers that describe the vSwitch's buffers (their start, length and,
	 * in the shared architectures, the port the packet came in on: NFVP_DESC_PORT_MAX where
	 * none did, 0 in isolated); a start or length set on them goes back to the vSwitch, and
	 * in the shared architectures a port (nfvp_nf_set_port). */
	uint16_t (*burst)(struct nfvp_nf *nf, struct rte_mbuf **pkts, uint16_t n);
};

/* Parse nflib's options (--ctl PATH --name NAME [--cpu N] [--max-pkts N] [--duration S]),
 * attach to the vSwitch and map what it hands over. Returns how many argv entries it
 * consumed (the NF's own options follow a "--"), or -errno after printing one line: -EINVAL
 * for a bad option and only then. */
int nfvp_nf_init(int argc, char **argv, const char *name, const struct nfvp_nf_ops *ops,
		 struct nfvp_nf **nf);
/* Run until SIGTERM/SIGINT, the vSwitch says stop, --max-pkts or --duration. 0 or -errno. */
int nfvp_nf_run(struct nfvp_nf *nf);
/* Detach (close the control connection) and free. */
void nfvp_nf_close(struct nfvp_nf *nf);

struct option;

/* An NF's own option: take value for the option of key, and return NULL, or what was
 * expected (a static string, e.g. "a count 1..65536"): nflib then prints
 * "NF: --OPTION: expected ..., found "VALUE"", naming the option from opts. */
typedef const char *(*nfvp_nf_opt_fn)(int key, const char *value);

/* The whole life of an NF, for its main(): init, the NF's own options after "--" (getopt_long
 * with opts, each handed to opt), run, close. Returns main's exit status: 0, 1 at run time,
 * 2 for a bad option (nflib's or the NF's). */
int nfvp_nf_main(int argc, char **argv, const char *name, const struct nfvp_nf_ops *ops,
		 const struct option *opts, nfvp_nf_opt_fn opt);

/* For burst handlers: n packets of this burst are dropped, and why (per_nf's drops_by_reason;
 * what a handler drops without saying counts as other). */
void nfvp_nf_drop(struct nfvp_nf *nf, enum nfvp_drop_reason why, uint16_t n);

/* For burst handlers: reorder pkts[0..n) so that those whose keep[i] is set come first, in
 * order, and the others after; returns how many go on (the handler's return value). */
static inline uint16_t
nfvp_nf_keep(struct rte_mbuf **pkts, uint16_t n, const bool *keep)
{
	struct rte_mbuf *dropped[NFVP_NF_MAX_BURST];
	uint16_t i, k = 0, d = 0;

	for (i = 0; i < n; i++) {
		if (keep[i])
			pkts[k++] = pkts[i];
		else
			dropped[d++] = pkts[i];
	}
	memcpy(pkts + k, dropped, d * sizeof(dropped[0]));
	return k;
}

/* Send this packet out of the vSwitch's port `port` when its chain ends (an L2 switch's or a
 * router's decision), instead of the chain's port. Shared-memory architectures only. */
static inline void
nfvp_nf_set_port(struct rte_mbuf *m, uint16_t port)
{
	((uint16_t *)&m->hash)[3] = port + 1; /* struct nfvp_meta's port, in nfvp_shm.h */
}

/* The NF's name and its user data pointer (for setup to hang state on). */
const char *nfvp_nf_name(const struct nfvp_nf *nf);
void *nfvp_nf_priv(const struct nfvp_nf *nf);
void nfvp_nf_set_priv(struct nfvp_nf *nf, void *priv);

#endif /* NFVP_NF_H */
