/* SPDX-License-Identifier: MIT */
/* ctl.c: messages with file descriptors over the vSwitch's control socket. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "nfvp_ctl.h"

int
nfvp_ctl_connect(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int sock;

	if (strlen(path) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	strcpy(addr.sun_path, path);
	sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (sock < 0)
		return -errno;
	if (connect(sock, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		int err = -errno;

		close(sock);
		return err;
	}
	return sock;
}

int
nfvp_ctl_send(int sock, const char *msg, int send_fd)
{
	struct iovec iov = { .iov_base = (void *)(uintptr_t)msg, .iov_len = strlen(msg) };
	char control[CMSG_SPACE(sizeof(int))] = { 0 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (send_fd >= 0) {
		struct cmsghdr *cm;

		mh.msg_control = control;
		mh.msg_controllen = sizeof(control);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &send_fd, sizeof(int));
	}
	if (sendmsg(sock, &mh, MSG_NOSIGNAL) < 0)
		return -errno;
	return 0;
}

ssize_t
nfvp_ctl_recv(int sock, char *buf, size_t len, int *recv_fd)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len - 1 };
	char control[CMSG_SPACE(sizeof(int))];
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = control, .msg_controllen = sizeof(control),
	};
	struct cmsghdr *cm;
	ssize_t n;

	if (recv_fd != NULL)
		*recv_fd = -1;
	n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	for (cm = CMSG_FIRSTHDR(&mh); cm != NULL; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm), sizeof(int));
			if (recv_fd != NULL)
				*recv_fd = fd;
			else
				close(fd);
		}
	}
	return n;
}

static const char *
find_key(const char *msg, const char *key)
{
	size_t klen = strlen(key);
	const char *p = msg;

	while ((p = strstr(p, key)) != NULL) {
		if ((p == msg || p[-1] == ' ') && p[klen] == '=')
			return p + klen + 1;
		p += klen;
	}
	return NULL;
}

int
nfvp_ctl_kv_u64(const char *msg, const char *key, uint64_t *value)
{
	const char *v = find_key(msg, key);
	char *end;

	if (v == NULL)
		return -ENOENT;
	errno = 0;
	*value = strtoull(v, &end, 0);
	if (errno != 0 || end == v)
		return -EINVAL;
	return 0;
}

int
nfvp_ctl_kv_str(const char *msg, const char *key, char *out, size_t len)
{
	const char *v = find_key(msg, key);
	size_t n;

	if (v == NULL)
		return -ENOENT;
	n = strcspn(v, " \n");
	if (n >= len)
		n = len - 1;
	memcpy(out, v, n);
	out[n] = '\0';
	return 0;
}
