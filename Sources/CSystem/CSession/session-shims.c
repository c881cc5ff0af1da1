#define _GNU_SOURCE
#include "CSession.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- PAM, loaded only by the path that needs it (the kiosk itself never does) ----------- */
/* Linux-PAM's ABI (security/pam_appl.h, stable since 1999); the header is not a build need. */
#define KIOSK_PAM_SUCCESS 0
#define KIOSK_PAM_TTY 3
#define KIOSK_PAM_ESTABLISH_CRED 0x0002
struct kiosk_pam_conv {
    int (*conv)(int, const void **, void **, void *);
    void *appdata_ptr;
};
typedef int (*pam_start_fn)(const char *, const char *, const struct kiosk_pam_conv *, void **);
typedef int (*pam_set_item_fn)(void *, int, const void *);
typedef int (*pam_handle_fn)(void *, int);
typedef char **(*pam_getenvlist_fn)(void *);
typedef const char *(*pam_strerror_fn)(void *, int);

/* No questions can be answered: the kiosk user has no password and logs in by no one's hand. */
static int no_conversation(int n, const void **msg, void **resp, void *data)
{
    (void)n; (void)msg; (void)resp; (void)data;
    return 19; /* PAM_CONV_ERR */
}

static void child_fail(const char *what, const char *detail)
{
    dprintf(2, "kiosk session: %s: %s\n", what, detail);
    _exit(127);
}

struct pam_session {
    void *handle;
    pam_handle_fn close_session, setcred;
    int (*end)(void *, int);
    char **env;
};

/* Opens the PAM session in this (child) process, or exits. */
static struct pam_session open_pam_session(const struct kiosk_identity *who)
{
    void *lib = dlopen("libpam.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!lib) child_fail("cannot load libpam.so.0", dlerror());
    pam_start_fn start = (pam_start_fn)dlsym(lib, "pam_start");
    pam_set_item_fn set_item = (pam_set_item_fn)dlsym(lib, "pam_set_item");
    pam_handle_fn acct = (pam_handle_fn)dlsym(lib, "pam_acct_mgmt");
    pam_handle_fn open_session = (pam_handle_fn)dlsym(lib, "pam_open_session");
    pam_getenvlist_fn getenvlist = (pam_getenvlist_fn)dlsym(lib, "pam_getenvlist");
    pam_strerror_fn strerr = (pam_strerror_fn)dlsym(lib, "pam_strerror");
    struct pam_session s = {
        .close_session = (pam_handle_fn)dlsym(lib, "pam_close_session"),
        .setcred = (pam_handle_fn)dlsym(lib, "pam_setcred"),
        .end = (int (*)(void *, int))dlsym(lib, "pam_end"),
    };
    if (!start || !set_item || !acct || !open_session || !getenvlist || !strerr || !s.close_session || !s.setcred || !s.end)
        child_fail("libpam.so.0", "a PAM function is missing");
    struct kiosk_pam_conv conv = { no_conversation, NULL };
    int r = start(who->pam_service, who->user, &conv, &s.handle);
    if (r != KIOSK_PAM_SUCCESS) child_fail("pam_start", strerr(s.handle, r));
    if (who->tty && (r = set_item(s.handle, KIOSK_PAM_TTY, who->tty)) != KIOSK_PAM_SUCCESS) child_fail("PAM_TTY", strerr(s.handle, r));
    if ((r = acct(s.handle, 0)) != KIOSK_PAM_SUCCESS) child_fail("PAM account", strerr(s.handle, r));
    if ((r = s.setcred(s.handle, KIOSK_PAM_ESTABLISH_CRED)) != KIOSK_PAM_SUCCESS) child_fail("PAM credentials", strerr(s.handle, r));
    if ((r = open_session(s.handle, 0)) != KIOSK_PAM_SUCCESS) child_fail("PAM session", strerr(s.handle, r));
    s.env = getenvlist(s.handle);
    return s;
}

static size_t count(char *const list[])
{
    size_t n = 0;
    while (list && list[n]) n++;
    return n;
}

/* The runtime folder stays the unit's (/run/kiosk), not logind's /run/user/UID: the confined
 * unit cannot see /run/user (ProtectHome=). */
static int kept_from_pam(const char *entry)
{
    return strncmp(entry, "XDG_RUNTIME_DIR=", 16) != 0;
}

/* `base` with every NAME=… of PAM's `extra` replacing base's entry of that NAME (malloc'd,
 * child only). */
static char **merge_env(char *const base[], char *const extra[])
{
    size_t nb = count(base), ne = count(extra), n = 0;
    char **out = calloc(nb + ne + 1, sizeof(char *));
    if (!out) child_fail("environment", strerror(errno));
    for (size_t i = 0; i < nb; i++) {
        size_t key = strcspn(base[i], "=");
        int replaced = 0;
        for (size_t j = 0; j < ne && !replaced; j++)
            replaced = kept_from_pam(extra[j]) && strncmp(extra[j], base[i], key + 1) == 0;
        if (!replaced) out[n++] = base[i];
    }
    for (size_t j = 0; j < ne; j++)
        if (kept_from_pam(extra[j])) out[n++] = extra[j];
    return out;
}

static struct passwd *account(const struct kiosk_identity *who)
{
    struct passwd *pw = getpwnam(who->user);
    if (!pw) child_fail(who->user, "no such user");
    return pw;
}

/* The session's terminal belongs to its user, as login(1) and systemd's TTYPath= do. Only a
 * virtual terminal's name (the caller checks it too): root changes the owner of this path. */
static void give_terminal(const char *tty, const struct passwd *pw)
{
    if (strncmp(tty, "tty", 3) != 0 || !tty[3] || strspn(tty + 3, "0123456789") != strlen(tty + 3) || strlen(tty) > 5)
        child_fail(tty, "not a virtual terminal's name");
    char path[16];
    snprintf(path, sizeof path, "/dev/%s", tty);
    if (chown(path, pw->pw_uid, (gid_t)-1) < 0 || chmod(path, 0620) < 0) child_fail(path, strerror(errno));
}

/* Becomes the user for good. The parent-death signal is set after the change, which clears it
 * (prctl(2)); `parent` gone by then means it died first. */
static void become(const struct passwd *pw, pid_t parent)
{
    if (setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) < 0) child_fail("setresgid", strerror(errno));
    if (setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid) < 0) child_fail("setresuid", strerror(errno));
    if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != parent) _exit(127);
    if (chdir(pw->pw_dir) < 0 && chdir("/") < 0) child_fail("chdir", strerror(errno));
}

/* Every descriptor above stderr closed: what the caller or a PAM module left open stays out of
 * the user's programs. */
static void close_inherited(void)
{
    if (close_range(3, ~0U, 0) == 0) return;
    for (int fd = 3; fd < 65536; fd++) close(fd);
}

static void run_program(const char *path, char *const argv[], char *const envp[])
{
    close_inherited();
    execve(path, argv, envp);
    child_fail(path, strerror(errno));
}

static const int stop_signals[] = { SIGTERM, SIGINT, SIGHUP };
static pid_t session_program;

static void forward_signal(int sig)
{
    if (session_program > 0) kill(session_program, sig);
}

static void stop_signal_set(sigset_t *set)
{
    sigemptyset(set);
    for (size_t i = 0; i < sizeof stop_signals / sizeof *stop_signals; i++) sigaddset(set, stop_signals[i]);
}

/* The PAM session's keeper, as login(1) and systemd are: logind ends a session once the
 * process that opened it lets go (pam_systemd's fd is close-on-exec), so this process stays,
 * runs the program as the user in a child, passes stop signals on, and closes the session
 * when the program has ended. Stop signals stay blocked until there is a program to pass them
 * to: one that comes while the session opens still closes it. Never returns. */
static void keep_pam_session(const char *path, char *const argv[], char *const envp[], const struct kiosk_identity *who)
{
    sigset_t stops;
    stop_signal_set(&stops);
    sigprocmask(SIG_BLOCK, &stops, NULL);
    struct sigaction forward = { .sa_handler = forward_signal };
    for (size_t i = 0; i < sizeof stop_signals / sizeof *stop_signals; i++) sigaction(stop_signals[i], &forward, NULL);

    struct passwd *pw = account(who);
    /* The user's groups first, then PAM's credentials, in this process as login(1) does: groups
     * a module adds (pam_group) are kept for the program. */
    if (initgroups(pw->pw_name, pw->pw_gid) < 0) child_fail("initgroups", strerror(errno));
    struct pam_session s = open_pam_session(who);
    if (who->tty) give_terminal(who->tty, pw);
    char **env = merge_env(envp, s.env);
    pid_t keeper = getpid();
    session_program = fork();
    if (session_program == 0) {
        for (size_t i = 0; i < sizeof stop_signals / sizeof *stop_signals; i++) signal(stop_signals[i], SIG_DFL);
        sigprocmask(SIG_UNBLOCK, &stops, NULL);
        become(pw, keeper);
        run_program(path, argv, env);
    }
    int status = 127 << 8;
    if (session_program > 0) {
        sigprocmask(SIG_UNBLOCK, &stops, NULL);
        while (waitpid(session_program, &status, 0) < 0 && errno == EINTR) {}
    } else {
        dprintf(2, "kiosk session: fork: %s\n", strerror(errno));
    }
    s.close_session(s.handle, 0);
    s.setcred(s.handle, 0x0004 /* PAM_DELETE_CRED */);
    s.end(s.handle, 0);
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}

pid_t kiosk_session_spawn(const char *path, char *const argv[], char *const envp[],
                          const struct kiosk_identity *who)
{
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid != 0) return pid;
    /* The child: the caller is single-threaded, so allocating here is safe. */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    for (int s = 1; s < NSIG; s++)
        if (s != SIGKILL && s != SIGSTOP) signal(s, SIG_DFL);
    if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != parent) _exit(127);
    setsid();
    if (who && who->user && who->pam_service) keep_pam_session(path, argv, envp, who);
    if (who && who->user) {
        struct passwd *pw = account(who);
        if (initgroups(pw->pw_name, pw->pw_gid) < 0) child_fail("initgroups", strerror(errno));
        become(pw, parent);
    }
    run_program(path, argv, envp);
    return -1;
}

int kiosk_session_signalfd(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGABRT);
    sigaddset(&set, SIGCHLD);
    if (sigprocmask(SIG_BLOCK, &set, NULL) < 0) return -1;
    return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

int kiosk_session_signalfd_read(int fd)
{
    struct signalfd_siginfo info;
    ssize_t n = read(fd, &info, sizeof info);
    return n == (ssize_t)sizeof info ? (int)info.ssi_signo : 0;
}

int kiosk_session_set_subreaper(void)
{
    return prctl(PR_SET_CHILD_SUBREAPER, 1);
}

/* <drm/drm.h>, a stable kernel ABI: struct drm_get_cap and DRM_IOCTL_GET_CAP. */
struct kiosk_drm_get_cap {
    uint64_t capability;
    uint64_t value;
};
#define KIOSK_DRM_IOCTL_GET_CAP _IOWR('d', 0x0c, struct kiosk_drm_get_cap)
#define KIOSK_DRM_CAP_PRIME 0x5

int kiosk_drm_prime_caps(int fd, uint64_t *caps)
{
    struct kiosk_drm_get_cap cap = { KIOSK_DRM_CAP_PRIME, 0 };
    int r;
    do {
        r = ioctl(fd, KIOSK_DRM_IOCTL_GET_CAP, &cap);
    } while (r < 0 && errno == EINTR);
    if (r < 0) return -1;
    *caps = cap.value;
    return 0;
}

struct kiosk_drm_version {
    int version_major, version_minor, version_patchlevel;
    size_t name_len;
    char *name;
    size_t date_len;
    char *date;
    size_t desc_len;
    char *desc;
};
#define KIOSK_DRM_IOCTL_VERSION _IOWR('d', 0x00, struct kiosk_drm_version)

int kiosk_drm_driver_name(int fd, char *buf, size_t size)
{
    struct kiosk_drm_version v;
    memset(&v, 0, sizeof v);
    v.name = buf;
    v.name_len = size - 1;
    if (ioctl(fd, KIOSK_DRM_IOCTL_VERSION, &v) < 0) return -1;
    buf[v.name_len < size - 1 ? v.name_len : size - 1] = 0;
    return 0;
}

/* <drm/drm_mode.h>: struct drm_mode_card_res and DRM_IOCTL_MODE_GETRESOURCES. With null arrays
 * the kernel only fills in the counts. */
struct kiosk_drm_mode_card_res {
    uint64_t fb_id_ptr, crtc_id_ptr, connector_id_ptr, encoder_id_ptr;
    uint32_t count_fbs, count_crtcs, count_connectors, count_encoders;
    uint32_t min_width, max_width, min_height, max_height;
};
#define KIOSK_DRM_IOCTL_MODE_GETRESOURCES _IOWR('d', 0xA0, struct kiosk_drm_mode_card_res)

int kiosk_drm_connector_count(int fd)
{
    struct kiosk_drm_mode_card_res res;
    memset(&res, 0, sizeof res);
    int r;
    do {
        r = ioctl(fd, KIOSK_DRM_IOCTL_MODE_GETRESOURCES, &res);
    } while (r < 0 && errno == EINTR);
    if (r < 0) return -1;
    return res.count_crtcs > 0 ? (int)res.count_connectors : 0;
}

static socklen_t address(const char *name, int abstract, struct sockaddr_un *sa)
{
    memset(sa, 0, sizeof *sa);
    sa->sun_family = AF_UNIX;
    size_t len = strlen(name);
    if (len + 1 >= sizeof sa->sun_path) return 0;
    if (abstract) {
        memcpy(sa->sun_path + 1, name, len); /* sun_path[0] stays NUL */
        return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len);
    }
    memcpy(sa->sun_path, name, len + 1);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len + 1);
}

int kiosk_session_notify_socket(const char *name)
{
    struct sockaddr_un sa;
    socklen_t len = address(name, 1, &sa);
    if (!len) { errno = ENAMETOOLONG; return -1; }
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return -1;
    int one = 1;
    if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one) < 0 || bind(fd, (struct sockaddr *)&sa, len) < 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

ssize_t kiosk_session_notify_receive(int fd, char *buf, size_t size, int64_t *uid)
{
    union {
        struct cmsghdr h;
        char space[CMSG_SPACE(sizeof(struct ucred))];
    } control;
    struct iovec iov = { buf, size - 1 };
    struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = &control, .msg_controllen = sizeof control };
    ssize_t n = recvmsg(fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (n < 0) return -1;
    buf[n] = 0;
    *uid = -1;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
            struct ucred cred;
            memcpy(&cred, CMSG_DATA(c), sizeof cred);
            *uid = cred.uid;
        } else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            /* File descriptors are not ours to keep (systemd's fd store is not relayed). */
            int nfd = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            int fds[nfd > 0 ? nfd : 1];
            memcpy(fds, CMSG_DATA(c), sizeof(int) * (size_t)nfd);
            for (int i = 0; i < nfd; i++) close(fds[i]);
        }
    }
    return n;
}

int kiosk_session_notify_send(const char *target, const char *data, size_t len)
{
    struct sockaddr_un sa;
    int abstract = target[0] == '@';
    socklen_t alen = address(abstract ? target + 1 : target, abstract, &sa);
    if (!alen) { errno = ENAMETOOLONG; return -1; }
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    ssize_t n = sendto(fd, data, len, MSG_NOSIGNAL, (struct sockaddr *)&sa, alen);
    int saved = errno;
    close(fd);
    errno = saved;
    return n < 0 ? -1 : 0;
}
