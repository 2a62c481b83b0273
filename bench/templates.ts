import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { stringify } from 'yaml'
// @ts-expect-error plain JavaScript without declarations
import { ensureBuilt } from '../src/build.mjs'
import { defaultAccount, startEmulator } from '../src/sandbox/emulator/index.js'
import { machineDetails, table } from './lib.js'

// `npx tsx bench/templates.ts`: `outbound templates plan` over a file of BENCH_TEMPLATES templates
// (default 250) against a catalog of as many (CONTRACT.md 20; the target: ≤ 2 s), as a CI
// job runs it: a process of its own on the embedded database, beside `outbound keys list` (the
// cheapest command that opens the database) in the same run. The file: 80% unchanged, 10% edited, 10% new.

const root = fileURLToPath(new URL('../', import.meta.url))
const bin = join(root, 'src/cli/bin.js')
const COUNT = Number(process.env.BENCH_TEMPLATES ?? 250)
const RUNS = Number(process.env.BENCH_TEMPLATES_RUNS ?? 3)

function template (index: number, edited = false) {
  return {
    name: `bench_template_${String(index).padStart(4, '0')}`,
    language: 'en_US',
    category: 'UTILITY',
    components: [
      { type: 'HEADER', format: 'TEXT', text: 'Order {{1}}', example: { header_text: ['860198'] } },
      { type: 'BODY', text: `Hi {{1}}, order {{2}} is ${edited ? 'delayed' : 'on its way'}.`, example: { body_text: [['Pablo', '860198']] } },
      { type: 'FOOTER', text: 'Not you? Ignore this message.' },
      { type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: 'Thanks' }, { type: 'URL', text: 'Track', url: 'https://example.com/t/{{1}}', example: ['860198'] }] }
    ]
  }
}

/** One command as a process: its wall time, and its CPU time (user + system, from /usr/bin/time), which a loaded machine changes less. */
async function run (args: string[], env: NodeJS.ProcessEnv): Promise<{ ms: number, cpuMs: number, stdout: string }> {
  const started = performance.now()
  let cpuMs = NaN
  const stdout = await new Promise<string>((resolve, reject) => {
    const child = spawn('/usr/bin/time', ['-f', 'BENCH %U %S', process.execPath, bin, ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', chunk => { out += chunk })
    child.stderr.on('data', chunk => { err += chunk })
    child.on('exit', code => {
      const line = err.split('\n').find(text => text.startsWith('BENCH '))
      if (line) cpuMs = (Number(line.split(' ')[1]) + Number(line.split(' ')[2])) * 1000
      if (code === 0) resolve(out)
      else reject(new Error(`${args.join(' ')} exited ${code}: ${err}${out}`))
    })
  })
  return { ms: performance.now() - started, cpuMs, stdout }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

export async function benchTemplates (): Promise<string> {
  await ensureBuilt()
  const account = defaultAccount()
  account.templates = Array.from({ length: COUNT }, (_, index) => ({ ...template(index), status: 'APPROVED' }))
  const emulator = await startEmulator({ accounts: [account] })
  const dataDir = mkdtempSync(join(tmpdir(), 'outbound-bench-templates-'))
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir, GRAPH_API_URL: emulator.url, LOG_LEVEL: 'warn' }
  try {
    const workspace = JSON.parse((await run(['workspace', 'create', '--name', 'Bench', '--plan', 'growth'], env)).stdout).id
    const connected = JSON.parse((await run(['connect', '--workspace', workspace, '--waba-id', account.wabaId, '--access-token', account.accessToken], env)).stdout)
    if (connected.templates !== COUNT) throw new Error(`catalog of ${connected.templates}, not ${COUNT}`)
    const file = join(dataDir, 'templates.yaml')
    const tenth = Math.floor(COUNT / 10)
    writeFileSync(file, stringify({ templates: Array.from({ length: COUNT }, (_, index) => index < COUNT - 2 * tenth ? template(index) : index < COUNT - tenth ? template(index, true) : template(COUNT + index)) }))
    const plans: number[] = []
    const lists: number[] = []
    const planCpu: number[] = []
    const listCpu: number[] = []
    let plan: { create: unknown[], update: unknown[], unchanged: number, problems: unknown[] } | undefined
    for (let round = 0; round < RUNS; round++) {
      const planned = await run(['templates', 'plan', '--workspace', workspace, '--file', file], env)
      plans.push(planned.ms)
      planCpu.push(planned.cpuMs)
      plan = JSON.parse(planned.stdout)
      const listed = await run(['keys', 'list', '--workspace', workspace], env)
      lists.push(listed.ms)
      listCpu.push(listed.cpuMs)
    }
    const counts = `create ${plan!.create.length}, update ${plan!.update.length}, unchanged ${plan!.unchanged}, problems ${plan!.problems.length}`
    return [
      `${machineDetails()}; load average ${loadavg().map(load => load.toFixed(2)).join(' ')}; ${COUNT} templates in the file and the catalog (${counts}); median of ${RUNS}`,
      '',
      table(['command', 'wall (ms)', 'of keys list', 'CPU (ms)', 'of keys list'], [
        ['outbound templates plan', median(plans).toFixed(0), `${(median(plans) / median(lists)).toFixed(2)}×`, median(planCpu).toFixed(0), `${(median(planCpu) / median(listCpu)).toFixed(2)}×`],
        ['outbound keys list', median(lists).toFixed(0), '1.00×', median(listCpu).toFixed(0), '1.00×']
      ])
    ].join('\n')
  } finally {
    await emulator.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await benchTemplates())
