/* SPDX-License-Identifier: MIT */
/* service_ctl.c: services as the control channel sees them: "service add|set" (their checks
 * and replies, nfvp_ctl.h) and their part of the JSON report. */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_hash.h>

#include "nfvp_parse.h"
#include "vswitch.h"

const char *const vs_policy_names[NFVP_POL_COUNT] = { NFVP_POLICY_NAMES };

/* "NF[:W],NF[:W]..." into NF ids and weights; 0 or a reply-ready error. */
static int
parse_instances(const struct vswitch *vs, char *list, uint16_t *nf, uint32_t *weight,
		unsigned int *n, char *err, size_t len)
{
	char *item, *save;
	unsigned int i, sum;

	*n = 0;
	for (item = strtok_r(list, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(item, ':');
		uint64_t w = 1;
		unsigned int i;
		int id = -1;

		if (colon != NULL) {
			*colon = '\0';
			if (nfvp_parse_u64(colon + 1, 0, NFVP_WEIGHT_MAX, &w) != 0) {
				snprintf(err, len, "error service weight: expected 0.."
					 RTE_STR(NFVP_WEIGHT_MAX) ", found \"%.32s\"", colon + 1);
				return -1;
			}
		}
		for (i = 0; i < vs->n_nf_ids; i++)
			if (vs->nfs[i].alive && strcmp(vs->nfs[i].name, item) == 0)
				id = (int)i;
		if (id < 0 || *n == NFVP_MAX_INSTANCES) {
			snprintf(err, len, id < 0 ? "error service nf: expected the name of an attached "
				 "NF, found \"%.64s\"" : "error service: expected at most "
				 RTE_STR(NFVP_MAX_INSTANCES) " instances, found more at \"%.64s\"", item);
			return -1;
		}
		for (i = 0; i < *n; i++)
			if (nf[i] == id) {
				snprintf(err, len, "error service nf: \"%.64s\" named twice", item);
				return -1;
			}
		nf[*n] = (uint16_t)id;
		weight[(*n)++] = (uint32_t)w;
	}
	if (*n == 0) {
		snprintf(err, len, "error service: expected at least one instance");
		return -1;
	}
	for (sum = 0, i = 0; i < *n; i++)
		sum += weight[i];
	if (sum == 0) {
		snprintf(err, len, "error service weight: expected weights that sum to more than 0");
		return -1;
	}
	return 0;
}

/* service add NAME POLICY stateless|stateful packets|bytes LARGE_BYTES NF[:W],...
 * service set NAME NF[:W],...
 * Replies "ok" or "error ...". */
void
vs_service_command(struct vswitch *vs, char *args, char *out, size_t len)
{
	char *verb = strtok(args, " "), *name = strtok(NULL, " ");
	uint16_t nf[NFVP_MAX_INSTANCES];
	uint32_t weight[NFVP_MAX_INSTANCES];
	struct vs_service *s;
	uint64_t dispatched;
	unsigned int n, i;
	int id;

	if (verb == NULL || name == NULL || strlen(name) >= sizeof(s->name)) {
		snprintf(out, len, "error service: expected add NAME ... or set NAME ...");
		return;
	}
	id = vs_service_find(vs, name);
	if (strcmp(verb, "set") == 0) {
		char *list = strtok(NULL, " ");

		if (id < 0 || list == NULL) {
			snprintf(out, len, id < 0 ? "error service: no service \"%.64s\"" :
				 "error service set: expected NAME NF[:W],...", name);
			return;
		}
		s = &vs->services[id];
		if (parse_instances(vs, list, nf, weight, &n, out, len) < 0)
			return;
		dispatched = s->gone_pkts;
		for (i = 0; i < s->n; i++)
			dispatched += s->inst_pkts[i];
		vs_service_set(vs, s, nf, weight, n);
		snprintf(out, len, "ok flows=%" PRIu64 " moved=%" PRIu64 " hash_moved=%" PRIu64
			 " mod_moved=%" PRIu64 " dispatched=%" PRIu64, s->last_flows, s->last_moved,
			 s->last_hash_moved, s->last_mod_moved, dispatched);
		return;
	}
	if (strcmp(verb, "add") == 0) {
		char *policy = strtok(NULL, " "), *state = strtok(NULL, " ");
		char *cost = strtok(NULL, " "), *large = strtok(NULL, " "), *list = strtok(NULL, " ");
		uint64_t lb;

		if (list == NULL) {
			snprintf(out, len, "error service add: expected NAME POLICY stateless|stateful "
				 "packets|bytes LARGE_BYTES NF[:W],...");
			return;
		}
		for (i = 0; i < RTE_DIM(vs_policy_names); i++)
			if (strcmp(policy, vs_policy_names[i]) == 0)
				break;
		if (i == RTE_DIM(vs_policy_names)) {
			snprintf(out, len, "error service policy: expected flow, weighted, round-robin "
				 "or nf-aware, found \"%.32s\"", policy);
			return;
		}
		if (strcmp(state, "stateless") != 0 && strcmp(state, "stateful") != 0) {
			snprintf(out, len, "error service state: expected stateless or stateful, "
				 "found \"%.32s\"", state);
			return;
		}
		if (i == NFVP_POL_RR && strcmp(state, "stateful") == 0) {
			snprintf(out, len, "error service policy: round-robin splits flows, expected a "
				 "stateless NF for it");
			return;
		}
		if (strcmp(cost, "packets") != 0 && strcmp(cost, "bytes") != 0) {
			snprintf(out, len, "error service cost: expected packets or bytes, found "
				 "\"%.32s\"", cost);
			return;
		}
		if (nfvp_parse_u64(large, NFVP_MIN_FRAME, NFVP_MAX_JUMBO_FRAME, &lb) != 0) {
			snprintf(out, len, "error service large_bytes: expected "
				 RTE_STR(NFVP_MIN_FRAME) ".." RTE_STR(NFVP_MAX_JUMBO_FRAME)
				 ", found \"%.32s\"", large);
			return;
		}
		if (parse_instances(vs, list, nf, weight, &n, out, len) < 0)
			return;
		if (id < 0) {
			for (id = 0; id < NFVP_MAX_SERVICES && vs->services[id].used; id++)
				;
			if (id == NFVP_MAX_SERVICES) {
				snprintf(out, len, "error service: expected at most "
					 RTE_STR(NFVP_MAX_SERVICES) " services");
				return;
			}
		}
		s = &vs->services[id];
		if (vs_service_reset(s, id) < 0) {
			snprintf(out, len, "error service: no memory for its flow table");
			return;
		}
		s->used = 1;
		snprintf(s->name, sizeof(s->name), "%s", name);
		s->policy = (enum nfvp_policy)i;
		s->stateless = strcmp(state, "stateless") == 0;
		s->cost_bytes = strcmp(cost, "bytes") == 0;
		s->large_bytes = (uint32_t)lb;
		s->decay_tsc = rte_rdtsc();
		vs_service_set(vs, s, nf, weight, n);
		s->scalings = 0;
		snprintf(out, len, "ok id=%d", id);
		return;
	}
	snprintf(out, len, "error service: expected add or set, found \"%.32s\"", verb);
}

void
vs_service_json(FILE *f, const struct vswitch *vs)
{
	unsigned int i, j, first = 1;

	fprintf(f, "\"services\": [");
	for (i = 0; i < NFVP_MAX_SERVICES; i++) {
		const struct vs_service *s = &vs->services[i];

		if (!s->used)
			continue;
		fprintf(f, "%s{\"id\": %u, \"name\": \"%s\", \"policy\": \"%s\", \"stateless\": %s, "
			"\"cost\": \"%s\", \"large_bytes\": %u, \"flows_pinned\": %u, "
			"\"unpinned\": %" PRIu64 ", \"scalings\": %" PRIu64 ", \"flows_moved\": %"
			PRIu64 ", \"last_scaling\": {\"flows\": %" PRIu64 ", \"moved\": %" PRIu64
			", \"hash_moved\": %" PRIu64 ", \"mod_moved\": %" PRIu64 "}, "
			"\"removed_instances\": {\"packets\": %" PRIu64 ", \"bytes\": %" PRIu64 "}, "
			"\"large_group\": %u, \"instances\": [",
			first ? "" : ", ", i, s->name, vs_policy_names[s->policy],
			s->stateless ? "true" : "false", s->cost_bytes ? "bytes" : "packets",
			s->large_bytes, (unsigned int)rte_hash_count(s->flows), s->unpinned,
			s->scalings, s->flows_moved, s->last_flows, s->last_moved,
			s->last_hash_moved, s->last_mod_moved, s->gone_pkts, s->gone_bytes,
			s->n_large);
		first = 0;
		for (j = 0; j < s->n; j++)
			fprintf(f, "%s{\"nf\": %u, \"name\": \"%s\", \"weight\": %u, \"packets\": %"
				PRIu64 ", \"bytes\": %" PRIu64 ", \"flows\": %" PRIu64 "}",
				j ? ", " : "", s->nf[j], vs->nfs[s->nf[j]].name, s->weight[j],
				s->inst_pkts[j], s->inst_bytes[j], s->inst_flows[j]);
		fprintf(f, "]}");
	}
	fprintf(f, "]");
}
