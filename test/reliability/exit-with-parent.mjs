// Plain JavaScript: it is preloaded into the compiled server too, which runs with no TypeScript loader.
/**
 * Preloaded (`--import`) into every server a reliability test starts (test/reliability/server-process.ts). When the
 * test process goes away, even by SIGKILL or tap's time-out, the IPC channel closes and the server closes itself:
 * SIGTERM first (its graceful close), then a hard exit if that does not finish. No server outlives its test.
 */
import cluster from 'node:cluster'

const hardExitAfterMs = 15_000

// A cluster worker (WEB_CONCURRENCY) is left alone: its channel is the primary's, which it needs to serve at all (the
// primary holds the listening socket), and node:cluster already ends a worker whose primary is gone.
if (process.channel && !cluster.isWorker) {
  // The channel must not keep a finished server alive; the server's own handles do that while it runs.
  process.channel.unref()
  process.once('disconnect', function exitWithParent() {
    setTimeout(() => process.exit(1), hardExitAfterMs).unref()
    process.kill(process.pid, 'SIGTERM')
  })
}
