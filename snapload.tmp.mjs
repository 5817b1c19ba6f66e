import { spawn } from 'node:child_process'
import { get } from 'node:http'
import autocannon from 'autocannon'
const [cwd, ...args] = process.argv.slice(2)
const port = 3000 + Math.floor(Math.random() * 5000) + 30000
const probe = (url) => new Promise((resolve) => { const q = get(url, { agent: false }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode)) }); q.on('error', () => resolve(0)) })
const child = spawn(process.execPath, ['--expose-gc', '--import', '/tmp/prodbuild/memsnap.mjs', ...args], { cwd, env: { ...process.env, NODE_ENV: 'production', PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' }, stdio: ['ignore', 'inherit', 'inherit'] })
while ((await probe(`http://127.0.0.1:${port}/`)) !== 200) await new Promise((r) => setTimeout(r, 20))
const run = autocannon({ url: `http://127.0.0.1:${port}/status`, connections: 50, duration: 6 })
setTimeout(() => child.kill('SIGWINCH'), 3000)
await run
await new Promise((r) => setTimeout(r, 4000))
child.kill('SIGTERM'); await new Promise((r) => child.once('exit', r))
