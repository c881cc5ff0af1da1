#if canImport(Glibc)
import Glibc
#endif

/// Runs a system program to its end and returns its exit status and what it printed (stdout and
/// stderr together, at most `limit` bytes), or nil when it cannot start. For the questions only
/// another program answers: cage's version, logind's and systemd's settings, sshd's.
func programOutput(_ path: String, _ arguments: [String], limit: Int = 1 << 20) -> (status: Int32, text: String)? {
    var pipe: [Int32] = [0, 0]
    guard Glibc.pipe(&pipe) == 0 else { return nil }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
    posix_spawn_file_actions_adddup2(&actions, pipe[1], 2)
    posix_spawn_file_actions_addclose(&actions, pipe[0])
    var pid: pid_t = 0
    let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    // Not the caller's environment: the program's own defaults, and English words to read.
    var environment: [UnsafeMutablePointer<CChar>?] = [strdup("PATH=\(UserEnvironment.defaultPath)"), strdup("LC_ALL=C"),
                                                       strdup("SYSTEMD_COLORS=0"), strdup("SYSTEMD_PAGER="), nil]
    defer { environment.forEach { free($0) } }
    let spawned = posix_spawn(&pid, path, &actions, nil, argv, &environment) == 0
    close(pipe[1])
    var output: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while spawned, case let n = read(pipe[0], &chunk, chunk.count), n > 0 {
        if output.count < limit { output += chunk[..<min(n, limit - output.count)] }
    }
    close(pipe[0])
    guard spawned else { return nil }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return (wifexited(status) ? wexitstatus(status) : 128 + wtermsig(status), String(decoding: output, as: UTF8.self))
}
