import { loadConfig } from '../config/env.ts'
import { buildApp } from '../src/app.ts'
import { pino } from 'pino'
const off = await buildApp(loadConfig({ LOG_LEVEL: 'silent' }), { logger: pino({ level: 'silent' }) })
const on = await buildApp(loadConfig({ LOG_LEVEL: 'silent', METRICS_PORT: '0' }), { logger: pino({ level: 'silent' }) })
await off.ready(); await on.ready()
const headers = { 'accept-encoding': 'br, gzip' }
async function run(app: typeof off, url: string, n: number) {
  const before = process.cpuUsage()
  for (let i = 0; i < n; i++) { const r = await app.inject({ url, headers }); if (r.statusCode !== 200) throw new Error(String(r.statusCode)) }
  const used = process.cpuUsage(before)
  return (used.user + used.system) / n
}
for (const url of ['/status', '/']) {
  const n = url === '/' ? 5000 : 1000
  await run(off, url, n); await run(on, url, n)
  const res: Record<string, number[]> = { off: [], on: [] }
  for (let round = 0; round < 6; round++) {
    const order = round % 2 ? ['on', 'off'] : ['off', 'on']
    for (const v of order) res[v]!.push(await run(v === 'on' ? on : off, url, n))
  }
  const med = (a: number[]) => a.sort((x, y) => x - y)[Math.floor(a.length / 2)]!
  console.log(url, 'cpu µs/request off', med(res.off!).toFixed(1), 'on', med(res.on!).toFixed(1), 'off/on', (med(res.off!) / med(res.on!)).toFixed(3))
}
await off.close(); await on.close()
