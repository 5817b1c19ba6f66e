// usage: node memload.tmp.mjs <cwd> <path> <seconds> -- node args
import { spawn, execSync } from 'node:child_process'
import { get } from 'node:http'
import { createServer } from 'node:net'
import { readFileSync } from 'node:fs'
import autocannon from 'autocannon'
const [cwd, target, secs, , ...args] = process.argv.slice(2)
const port = await new Promise((r) => { const s = createServer(); s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => r(p)) }) })
const probe = (url) => new Promise((resolve) => { const q = get(url, { agent: false }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode)) }); q.on('error', () => resolve(0)) })
const child = spawn(process.execPath, args, { cwd, env: { ...process.env, NODE_ENV: 'production', PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...JSON.parse(process.env.EXTRA_ENV ?? '{}') }, stdio: ['ignore', 'inherit', 'inherit'] })
while ((await probe(`http://127.0.0.1:${port}/`)) !== 200) await new Promise((r) => setTimeout(r, 20))
const tree = () => { const out = execSync(`ps -o pid= --ppid ${child.pid}; echo ${child.pid}`).toString().trim().split(/\s+/).map(Number); return out }
const hwm = () => tree().map((pid) => { try { return Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) } catch { return 0 } })
const rss = () => tree().map((pid) => { try { return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) } catch { return 0 } })
console.log('idle: rss KiB', rss(), 'tree', tree())
const run = (d) => autocannon({ url: `http://127.0.0.1:${port}${target}`, connections: 50, duration: d })
await run(2)
const r = await run(Number(secs))
console.log(JSON.stringify({ args: args.join(' '), target, reqPerSec: r.requests.average, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx, hwmMiB: hwm().map((k) => +(k / 1024).toFixed(1)), rssAfterMiB: rss().map((k) => +(k / 1024).toFixed(1)) }))
child.kill('SIGTERM'); await new Promise((r) => child.once('exit', r))
