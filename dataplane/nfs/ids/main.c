/* SPDX-License-Identifier: MIT */
/* ids: an intrusion detection NF that scans every IPv4 packet's payload (after the UDP or TCP
 * header, or the IP header for other protocols) for a set of signatures with an Aho-Corasick
 * automaton (Aho & Corasick, CACM 1975), compiled into a full DFA: one table load per payload
 * byte, so its cost follows the bytes it reads (the payload NF of Hajji et al.; the NAT is the
 * header one). Matching packets are counted, or dropped with --drop (an IPS). Non-IPv4 frames
 * pass unscanned.
 *
 * Signatures: --signatures FILE (one per line; \xHH escapes; blank lines and # comments
 * skipped), else --random N of them (default 100), 8 to 16 random bytes each from --seed.
 * Its EO model: src/nfvperf/data/nfs/ids.yaml. */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_tcp.h>

#include "nfvp_nf.h"
#include "nfvp_parse.h"

#define IDS_MAX_STATES 65535u
#define IDS_MAX_SIG 256

static struct {
	const char *file;
	unsigned int random, seed, drop;
	uint16_t *delta;   /* states x 256: the next state */
	uint8_t *match;    /* per state: a signature ends here (itself or along its failure chain) */
	unsigned int states;
	uint64_t scanned, matched;
} ids = { .random = 100, .seed = 1 };

/* The automaton under construction: a trie of child lists, then failure links (BFS order). */
struct ac_build {
	int32_t *next;     /* states x 256, -1: no edge (trie) */
	int32_t *fail;
	uint8_t *out;
	unsigned int n, cap;
};

static int
ac_grow(struct ac_build *b)
{
	unsigned int cap = b->cap ? 2 * b->cap : 256;
	int32_t *next = realloc(b->next, (size_t)cap * 256 * sizeof(*next));
	int32_t *fail = next ? realloc(b->fail, cap * sizeof(*fail)) : NULL;
	uint8_t *out = fail ? realloc(b->out, cap) : NULL;

	if (next)
		b->next = next;
	if (fail)
		b->fail = fail;
	if (out == NULL)
		return -ENOMEM;
	b->out = out;
	b->cap = cap;
	return 0;
}

static int
ac_new_state(struct ac_build *b)
{
	if (b->n == IDS_MAX_STATES)
		return -ENOSPC;
	if (b->n == b->cap && ac_grow(b) < 0)
		return -ENOMEM;
	memset(b->next + (size_t)b->n * 256, 0xff, 256 * sizeof(*b->next));
	b->out[b->n] = 0;
	return (int)b->n++;
}

static int
ac_add(struct ac_build *b, const uint8_t *sig, size_t len)
{
	int32_t s = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		int32_t *edge = &b->next[(size_t)s * 256 + sig[i]];

		if (*edge < 0) {
			int t = ac_new_state(b);

			if (t < 0)
				return t;
			edge = &b->next[(size_t)s * 256 + sig[i]]; /* the table may have moved */
			*edge = t;
		}
		s = *edge;
	}
	b->out[s] = 1;
	return 0;
}

/* Failure links in BFS order, every missing edge filled from the failure state's: the DFA. */
static int
ac_compile(struct ac_build *b)
{
	uint32_t *queue = malloc(b->n * sizeof(*queue)), head = 0, tail = 0, c;

	if (queue == NULL)
		return -ENOMEM;
	b->fail[0] = 0;
	for (c = 0; c < 256; c++) {
		int32_t *e = &b->next[c];

		if (*e < 0) {
			*e = 0;
		} else {
			b->fail[*e] = 0;
			queue[tail++] = (uint32_t)*e;
		}
	}
	while (head < tail) {
		uint32_t s = queue[head++];

		b->out[s] |= b->out[b->fail[s]];
		for (c = 0; c < 256; c++) {
			int32_t *e = &b->next[(size_t)s * 256 + c];
			int32_t via_fail = b->next[(size_t)b->fail[s] * 256 + c];

			if (*e < 0) {
				*e = via_fail;
			} else {
				b->fail[*e] = via_fail;
				queue[tail++] = (uint32_t)*e;
			}
		}
	}
	free(queue);
	return 0;
}

/* One signature line: \xHH escapes, the rest literal. Returns its length, -1 if malformed. */
static int
parse_sig(const char *line, uint8_t *out)
{
	int n = 0;

	while (*line && *line != '\n' && *line != '\r') {
		unsigned int v;

		if (n == IDS_MAX_SIG)
			return -1;
		if (line[0] == '\\' && line[1] == 'x') {
			if (sscanf(line + 2, "%2x", &v) != 1)
				return -1;
			out[n++] = (uint8_t)v;
			line += 4;
		} else {
			out[n++] = (uint8_t)*line++;
		}
	}
	return n;
}

static int
load_signatures(struct ac_build *b)
{
	uint8_t sig[IDS_MAX_SIG];
	char line[4 * IDS_MAX_SIG + 2];
	unsigned int i, k, lineno = 0;
	FILE *f;
	int rc;

	if (ids.file == NULL) {
		srand(ids.seed);
		for (i = 0; i < ids.random; i++) {
			unsigned int len = 8 + (unsigned int)rand() % 9;

			for (k = 0; k < len; k++)
				sig[k] = (uint8_t)rand();
			rc = ac_add(b, sig, len);
			if (rc < 0)
				return rc;
		}
		return 0;
	}
	f = fopen(ids.file, "r");
	if (f == NULL) {
		fprintf(stderr, "ids: --signatures: cannot read %s: %s\n", ids.file, strerror(errno));
		return -ENOENT;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		int len;

		lineno++;
		if (line[0] == '#' || line[0] == '\n' || line[0] == '\r')
			continue;
		len = parse_sig(line, sig);
		if (len <= 0) {
			fprintf(stderr, "ids: %s:%u: expected a signature (text, \\xHH escapes, at "
				"most %u bytes)\n", ids.file, lineno, IDS_MAX_SIG);
			fclose(f);
			return -EINVAL;
		}
		rc = ac_add(b, sig, (size_t)len);
		if (rc < 0) {
			fclose(f);
			return rc;
		}
	}
	fclose(f);
	return 0;
}

static int
ids_setup(struct nfvp_nf *nf)
{
	struct ac_build b = { 0 };
	unsigned int s, c;
	int rc;

	(void)nf;
	rc = ac_new_state(&b);
	if (rc >= 0)
		rc = load_signatures(&b);
	if (rc >= 0)
		rc = ac_compile(&b);
	if (rc >= 0) {
		ids.states = b.n;
		ids.delta = malloc((size_t)b.n * 256 * sizeof(*ids.delta));
		ids.match = malloc(b.n);
		if (ids.delta == NULL || ids.match == NULL)
			rc = -ENOMEM;
	}
	if (rc >= 0) {
		for (s = 0; s < b.n; s++)
			for (c = 0; c < 256; c++)
				ids.delta[(size_t)s * 256 + c] = (uint16_t)b.next[(size_t)s * 256 + c];
		memcpy(ids.match, b.out, b.n);
	} else if (rc == -ENOSPC) {
		fprintf(stderr, "ids: the signatures need more than %u states\n", IDS_MAX_STATES);
	}
	free(b.next);
	free(b.fail);
	free(b.out);
	return rc < 0 ? rc : 0;
}

/* The payload of an IPv4 packet: after the TCP or UDP header, or after the IP header. */
static const uint8_t *
payload(const struct rte_mbuf *m, uint32_t *len)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *), *end = p + m->data_len;
	const struct rte_ether_hdr *eth = (const struct rte_ether_hdr *)p;
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(eth + 1);
	const uint8_t *l4;

	if (eth->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
	    m->data_len < sizeof(*eth) + sizeof(*ip))
		return NULL;
	l4 = (const uint8_t *)ip + (ip->version_ihl & 0xf) * 4;
	if (ip->next_proto_id == IPPROTO_UDP)
		l4 += 8;
	else if (ip->next_proto_id == IPPROTO_TCP && l4 + sizeof(struct rte_tcp_hdr) <= end)
		l4 += (((const struct rte_tcp_hdr *)l4)->data_off >> 4) * 4;
	if (l4 > end)
		return NULL;
	*len = (uint32_t)(end - l4);
	return l4;
}

static uint16_t
ids_burst(struct nfvp_nf *nf, struct rte_mbuf **pkts, uint16_t n)
{
	bool keep[NFVP_NF_MAX_BURST];
	uint16_t i;

	for (i = 0; i < n; i++) {
		uint32_t len = 0, j, s = 0, hit = 0;
		const uint8_t *p = payload(pkts[i], &len);

		if (p != NULL) {
			for (j = 0; j < len; j++) {
				s = ids.delta[(size_t)s * 256 + p[j]];
				hit |= ids.match[s];
			}
			ids.scanned++;
			ids.matched += hit;
		}
		keep[i] = !(hit && ids.drop);
		if (!keep[i])
			nfvp_nf_drop(nf, NFVP_DROP_POLICY, 1); /* a signature matched */
	}
	return nfvp_nf_keep(pkts, n, keep);
}

static const char *
ids_opt(int key, const char *value)
{
	uint64_t v;

	if (key == 'f') {
		ids.file = value;
		return NULL;
	}
	if (key == 'd') {
		ids.drop = 1;
		return NULL;
	}
	if (key == 'r') {
		if (nfvp_parse_u64(value, 1, 4096, &v) != 0)
			return "a count 1..4096";
		ids.random = (unsigned int)v;
		return NULL;
	}
	if (nfvp_parse_u64(value, 0, UINT32_MAX, &v) != 0)
		return "a seed 0..4294967295";
	ids.seed = (unsigned int)v;
	return NULL;
}

int
main(int argc, char **argv)
{
	static const struct nfvp_nf_ops ops = { .setup = ids_setup, .burst = ids_burst };
	static const struct option opts[] = {
		{ "signatures", required_argument, NULL, 'f' },
		{ "random", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 's' },
		{ "drop", no_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};

	return nfvp_nf_main(argc, argv, "ids", &ops, opts, ids_opt);
}
