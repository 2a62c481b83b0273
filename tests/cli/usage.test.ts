import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { commands } from '../../src/cli/commands/index.js'
import { runCli } from '../helpers/cli.js'

describe('outbound: usage, help and configuration', () => {
  let dataDir: string
  let env: Record<string, string>

  beforeAll(async () => {
    const parent = await mkdtemp(join(tmpdir(), 'outbound-cli-usage-'))
    dataDir = join(parent, 'data')
    env = { DATA_DIR: dataDir }
  })
  afterAll(async () => { await rm(join(dataDir, '..'), { recursive: true, force: true }) })

  it('prints every command as JSON for help, from any directory', async () => {
    const results = await Promise.all([runCli(['help'], env, { cwd: tmpdir() }), runCli(['--help'], env), runCli([], env)])
    for (const result of results) {
      expect(result.code).toBe(0)
      expect(result.json.commands.map((entry: { usage: string }) => entry.usage)).toContain('outbound keys create --workspace ID [--name N] [--scopes a,b] [--phone-number-ids x,y]')
      expect(result.json.commands).toHaveLength(Object.keys(commands).length)
    }
    const one = await runCli(['keys', 'list', '--help'], env)
    expect(one.json).toEqual({ commands: [{ usage: 'outbound keys list --workspace ID', does: expect.any(String) }] })
  })

  it('runs as `npx outbound` from the checkout', async () => {
    const result = await runCli(['help', 'migrate'], env, { command: ['npx', '--no-install', 'outbound'] })
    expect(result.code).toBe(0)
    expect(result.json.commands[0].usage).toBe('outbound migrate')
  })

  it('exits 2 with the usage line on wrong usage, before touching the database', async () => {
    // Every case of the parser is in invocation.test.ts: these only prove the exit code and the stream.
    const cases: [string[], string][] = [
      [['frobnicate'], 'unknown command "frobnicate"'],
      [['workspace', 'create', '--name', 'Acme', '--plan', 'gold'], '--plan must be one of free, starter, growth, scale'],
      [['messages', 'list', '--workspace', 'ws_1', '--limit', 'ten'], '--limit must be an integer from 1 to 1000']
    ]
    const results = await Promise.all(cases.map(([args]) => runCli(args, env)))
    results.forEach((result, index) => {
      expect(result.code, cases[index][0].join(' ')).toBe(2)
      expect(result.stdout).toBe('')
      expect(result.json.ok).toBe(false)
      expect(result.json.error).toMatch(/^usage: outbound /)
      expect(result.json.error).toContain(cases[index][1])
    })
    expect(results[1].json.error).toBe('usage: outbound workspace create --name N --plan P (--plan must be one of free, starter, growth, scale)')
    expect(existsSync(dataDir)).toBe(false)
  })

  it('exits 1 naming the variable when the configuration is invalid', async () => {
    const [port, key] = await Promise.all([
      runCli(['migrate'], { ...env, PORT: 'abc' }),
      runCli(['keys', 'list', '--workspace', 'ws_1'], { ...env, DATABASE_URL: 'postgres://operator:hunter2@127.0.0.1:1/outbound' })
    ])
    expect(port.code).toBe(1)
    expect(port.json).toEqual({ ok: false, error: expect.stringMatching(/^invalid PORT\b/) })
    expect(key.code).toBe(1)
    expect(key.json.error).toMatch(/^invalid ENCRYPTION_KEY\b/)
    expect(key.stderr).not.toContain('hunter2')
    expect(existsSync(dataDir)).toBe(false)
  })
})
