# The light game process of supervise.bench.ts: 200 of these run at once, under svc and under
# pm2, so it must cost next to nothing. Run it with bash (or any POSIX sh):
#
#   bash supervise-fixture.sh <events-file> <id> [port]
#
# On start it prints a line with the wall-clock time (CLOCK_REALTIME) and then the ready line,
# as a Minecraft server prints "Done (…)!" when it has started; then it reads commands on stdin:
# `stop` exits 0, `crash` exits 1. Each timestamp also goes to <events-file> (one shared file,
# appended in single small writes, after the timed lines), so the bench knows them without
# reading 200 logs:
#
#   start <id> <time> <pid>     after the ready line
#   crash <id> <time> <pid>     just before exiting 1
#
# <time> is bash's $EPOCHREALTIME ("seconds.microseconds": read without a fork, so it is taken
# right before the ready line), or `date +%s%N` (nanoseconds) in a shell without it (dash):
# there the fork of date sits between the timestamp and the ready line.
events=$1
id=$2
port=${3:-}

now() {
  if [ -n "${EPOCHREALTIME:-}" ]; then t=$EPOCHREALTIME; else t=$(date +%s%N); fi
}

now
echo "bench fixture $id (pid $$, port $port) started at $t"
echo 'Done (0.1s)! For help, type "help"'
echo "start $id $t $$" >>"$events"

while IFS= read -r line; do
  case $line in
    stop) exit 0 ;;
    crash)
      now
      echo "crash $id $t $$" >>"$events"
      echo "crashing on request at $t"
      exit 1
      ;;
  esac
done
# stdin closed (nobody will ever send a command): end like a server whose console went away.
exit 0
