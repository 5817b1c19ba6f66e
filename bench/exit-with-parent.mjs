/**
 * Preloaded (`--import`) into every server the bench starts. The bench talks to its children over an IPC channel
 * for one reason: when the bench dies, even by SIGKILL, the channel closes and the child shuts itself down with
 * SIGTERM (Courier's graceful close), so no server outlives its benchmark.
 */
if (process.channel) {
  // The channel must not keep a finished server alive; the server's own handles do that while it runs.
  process.channel.unref()
  process.once('disconnect', function exitWithParent() {
    process.kill(process.pid, 'SIGTERM')
  })
}
