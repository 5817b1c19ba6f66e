import { spawn } from 'node:child_process'
import { get } from 'node:http'
import autocannon from 'autocannon'
const [cwd, ...args] = process.argv.slice(2)
const port = 30000 + Math.floor(Math.random() * 5000)
const probe = (url) => new Promise((resolve) => { const q = get(url, { agent: false }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode)) }); q.on('error', () => resolve(0)) })
const child = spawn(process.execPath, ['--import', '/tmp/prodbuild/allocprof.mjs', ...args], { cwd, env: { ...process.env, NODE_ENV: 'production', PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' }, stdio: ['ignore', 'inherit', 'inherit'] })
while ((await probe(`http://127.0.0.1:${port}/`)) !== 200) await new Promise((r) => setTimeout(r, 20))
await autocannon({ url: `http://127.0.0.1:${port}/status`, connections: 50, duration: 2 })
child.kill('SIGWINCH'); await new Promise((r) => setTimeout(r, 200))
const r = await autocannon({ url: `http://127.0.0.1:${port}/status`, connections: 50, duration: 4 })
child.kill('SIGWINCH'); await new Promise((r) => setTimeout(r, 2000))
console.log('requests', r.requests.total)
child.kill('SIGTERM'); await new Promise((r) => child.once('exit', r))
