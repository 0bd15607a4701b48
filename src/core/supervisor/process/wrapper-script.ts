/**
 * The POSIX sh wrapper that lets a game server outlive the controller. It runs detached in its
 * own session (so it is also the leader of the server's process group) as
 *
 *   /bin/sh -c WRAPPER_SCRIPT svc-wrapper <marker> <stateDir> <info> <argv...>
 *
 * The marker is not used by the script: it is there so that `/proc/<pid>/cmdline` (or `ps`)
 * proves a live pid is still this wrapper. The server's argv is never part of the script text;
 * it arrives as separate arguments and is run as "$@", so no quoting can go wrong.
 *
 * Contract with the controller (file names from state-files.ts):
 *   - stdin.fifo is created if missing and held open read-write on fd 3 for the wrapper's whole
 *     life: the server never reads EOF while no controller writes, and a controller's
 *     non-blocking open for writing always finds a reader;
 *   - the server's stdout and stderr are appended to console.log;
 *   - server.pid gets the server's pid followed by "\n" before the server starts;
 *   - exit-code gets the server's status as sh reports it (128+n after signal n) followed by
 *     "\n", only once the server has ended; `echo` is a builtin writing it in one write(), so a
 *     reader sees an empty file or the whole line, and reads it as final only with the "\n"
 *     (no `mv` to fork on every exit);
 *   - 126 without a server.pid means the wrapper could not set up the FIFO;
 *   - <info> is "-", or a file name in the state dir opened for writing on the server's fd 4:
 *     a bubblewrap sandbox (`--info-fd 4`) writes its child's pid there (sandbox-pid.ts), and
 *     bwrap closes it before the sandboxed program runs. Nothing else gets an fd 4.
 *   - once exit-code is written, the wrapper SIGKILLs its whole process group, itself included
 *     (`kill -KILL 0`): nothing the server forked outlives it, whether it stopped, crashed or was
 *     killed, and whether a controller is watching or not. Only a child that left the group
 *     (setsid) escapes this; uid mode and the sandbox end those too (core/isolation).
 * The controller signals the server (and, for SIGKILL, the rest of the group but the wrapper:
 * process-group.ts); the wrapper catches HUP/INT/TERM with a no-op trap (caught, not ignored:
 * ignored signals would be inherited by the server) so that even a signal to the whole process
 * group still lets it record the exit code. A trap waits for the foreground command to finish,
 * so the wrapper keeps waiting for the server.
 */
export const WRAPPER_SCRIPT = `
dir=$2
info=$3
shift 3
trap : HUP INT TERM
fifo=$dir/stdin.fifo
if [ ! -p "$fifo" ]; then
  rm -f "$fifo" && mkfifo -m 600 "$fifo" || exit 126
fi
exec 3<>"$fifo" || exit 126
server='exec >>"$1" 2>&1 3<&-; echo $$ >"$2"; shift 2; exec "$@"'
if [ "$info" = - ]; then
  /bin/sh -c "$server" svc-server "$dir/console.log" "$dir/server.pid" "$@" <&3
else
  /bin/sh -c "$server" svc-server "$dir/console.log" "$dir/server.pid" "$@" <&3 4>"$dir/$info"
fi
code=$?
echo "$code" >"$dir/exit-code"
kill -KILL 0
`;

/** argv for Bun.spawn: the wrapper, then the server's own argv untouched. `info`: see the contract above. */
export function wrapperArgv(marker: string, stateDir: string, argv: readonly string[], info?: string): string[] {
  if (info !== undefined && (info === '-' || info === '' || info.includes('/'))) throw new Error(`wrapper info file must be a plain file name, got ${JSON.stringify(info)}`);
  return ['/bin/sh', '-c', WRAPPER_SCRIPT, 'svc-wrapper', marker, stateDir, info ?? '-', ...argv];
}
