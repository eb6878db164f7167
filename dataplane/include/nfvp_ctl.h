/* SPDX-License-Identifier: MIT */
/* nfvp_ctl.h: the vSwitch's control channel, a SOCK_SEQPACKET unix socket of text messages.
 * Every request gets one reply: "ok ..." or "error WHAT: expected ..., found "..."" (one line;
 * nothing changed). The whole protocol:
 *
 *   attach nf NAME PID   -> ok id=N arch=A base=0x.. len=N slot=OFF     + the region's fd
 *   attach gen PID       -> ok base=0x.. len=N ports=N queues=N          + the arena's fd
 *   chain add ID MAC OUT_PORT NF[,NF...]  -> ok        (ID 0..NFVP_MAX_CHAINS-1; an NF or a
 *                                                       service name per hop; replaces ID)
 *   chain del ID         -> ok                        (ID 0..NFVP_MAX_CHAINS-1)
 *   chain default ID|none -> ok (where packets whose MAC no chain has go; none: dropped)
 *   chain port P ID|none -> ok (every packet from port P goes to chain ID, whatever its MAC;
 *                               none: by MAC again)
 *   service add NAME POLICY stateless|stateful packets|bytes LARGE_BYTES NF[:W][,NF[:W]...]
 *                        -> ok id=N                   (POLICY: NFVP_POLICY_NAMES; W: weight
 *                                                       0..NFVP_WEIGHT_MAX, default 1)
 *   service set NAME NF[:W][,NF[:W]...]
 *                        -> ok flows=N moved=N hash_moved=N mod_moved=N dispatched=N
 *   start                -> ok (with --rx-hold: begin taking packets from the ports)
 *   status               -> ok nfs=N chains=N inflight=N pool_free=N pool_size=N ports=N
 *   stats PATH           -> ok (writes the JSON report to PATH, atomically)
 *   quit                 -> ok (drains, writes --stats-out, exits)
 *
 * An NF stays attached while its connection is open: the vSwitch reads EOF as the NF's death
 * and reclaims its packets. */

#ifndef NFVP_CTL_H
#define NFVP_CTL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

int nfvp_ctl_connect(const char *path);
/* Send msg with an optional fd (send_fd < 0: none). Returns 0 or -errno. */
int nfvp_ctl_send(int sock, const char *msg, int send_fd);
/* Receive one message into buf (NUL-terminated) and an optional fd (*recv_fd = -1 if none).
 * Returns the message length, 0 at EOF, or -errno. */
ssize_t nfvp_ctl_recv(int sock, char *buf, size_t len, int *recv_fd);
/* Find "key=value" in a reply and parse the value as an unsigned integer (any base prefix).
 * Returns 0 or -ENOENT. */
int nfvp_ctl_kv_u64(const char *msg, const char *key, uint64_t *value);
/* Copy the value of "key=value" (up to a space) into out. Returns 0 or -ENOENT. */
int nfvp_ctl_kv_str(const char *msg, const char *key, char *out, size_t len);

#endif /* NFVP_CTL_H */
