import { describe, expect, it } from 'vitest'
import { loadCommand } from '../../src/cli/command.js'
import { commands } from '../../src/cli/commands/index.js'
import { UsageError } from '../../src/cli/flags.js'
import { parseInvocation } from '../../src/cli/invocation.js'

async function usageError (argv: string[]): Promise<string> {
  try {
    await parseInvocation(argv)
  } catch (error) {
    if (error instanceof UsageError) return error.message
    throw error
  }
  throw new Error(`no usage error for ${argv.join(' ')}`)
}

describe('parseInvocation', () => {
  it('finds the command and its validated flags', async () => {
    expect(await parseInvocation(['workspace', 'create', '--name', 'Acme Ltd', '--plan', 'growth']))
      .toEqual({ kind: 'run', command: await loadCommand(commands['workspace create']), args: { name: 'Acme Ltd', plan: 'growth' } })
    expect(await parseInvocation(['keys', 'create', '--workspace=ws_1'])).toMatchObject({ args: { workspace: 'ws_1', name: 'default' } })
    expect(await parseInvocation(['messages', 'list', '--limit', '7', '--workspace', 'ws_1', '--status', 'failed']))
      .toMatchObject({ args: { workspace: 'ws_1', status: 'failed', limit: 7 } })
    expect(await parseInvocation(['inbound', 'list', '--workspace', 'ws_1'])).toMatchObject({ args: { workspace: 'ws_1', limit: 50 } })
    expect(await parseInvocation(['migrate'])).toEqual({ kind: 'run', command: await loadCommand(commands.migrate), args: {} })
  })

  it('answers help for everything, a group, or one command', async () => {
    expect(await parseInvocation([])).toEqual({ kind: 'help', names: Object.keys(commands) })
    expect(await parseInvocation(['help', 'keys'])).toEqual({ kind: 'help', names: ['keys create', 'keys revoke', 'keys list'] })
    expect(await parseInvocation(['workspace', 'plan', '-h'])).toEqual({ kind: 'help', names: ['workspace plan'] })
    expect(await parseInvocation(['nonsense', '--help'])).toEqual({ kind: 'help', names: Object.keys(commands) })
  })

  it.each([
    [['frobnicate'], 'outbound <command> [flags] (unknown command "frobnicate"; run "outbound help" for the list)'],
    [['--plan', 'free'], 'outbound <command> [flags] (missing command; run "outbound help" for the list)'],
    [['keys', '--workspace', 'ws_1'], 'outbound <command> [flags] (unknown command "keys"; did you mean keys create, keys revoke, keys list?)'],
    [['workspace', 'create', '--name', 'Acme'], 'outbound workspace create --name N --plan P (missing --plan)'],
    [['workspace', 'create', '--name', ' ', '--plan', 'free'], 'outbound workspace create --name N --plan P (--name must not be empty)'],
    [['workspace', 'create', '--name', 'Acme', '--plan', 'gold'], 'outbound workspace create --name N --plan P (--plan must be one of free, starter, growth, scale)'],
    [['workspace', 'create', '--name', '--plan', 'free'], 'outbound workspace create --name N --plan P (--name needs a value)'],
    [['workspace', 'plan', '--workspace', 'ws_1', '--plan'], 'outbound workspace plan --workspace ID --plan P (--plan needs a value)'],
    [['workspace', 'plan', '--workspace', 'ws_1', '--plan', 'free', '--force'], 'outbound workspace plan --workspace ID --plan P (unknown flag --force)'],
    [['keys', 'revoke', 'key_1'], 'outbound keys revoke --id KEY_ID (unexpected argument "key_1")'],
    [['keys', 'revoke', '--id', 'a', '--id', 'b'], 'outbound keys revoke --id KEY_ID (--id given twice)'],
    [['keys', 'list', '--workspace', 'ws_1', '--', 'x'], 'outbound keys list --workspace ID (unexpected "--")'],
    [['messages', 'list', '--workspace', 'ws_1', '--status', 'lost'], 'outbound messages list --workspace ID [--status S] [--limit N] (--status must be one of queued, sending, pending, sent, delivered, read, failed)'],
    [['messages', 'list', '--workspace', 'ws_1', '--limit', '0'], 'outbound messages list --workspace ID [--status S] [--limit N] (--limit must be an integer from 1 to 1000)'],
    [['inbound', 'list', '--workspace', 'ws_1', '--limit=-5'], 'outbound inbound list --workspace ID [--limit N] (--limit must be an integer from 1 to 1000)'],
    [['inbound', 'list', '--workspace', 'ws_1', '--limit', '1e3'], 'outbound inbound list --workspace ID [--limit N] (--limit must be an integer from 1 to 1000)']
  ])('refuses %j', async (argv, message) => {
    expect(await usageError(argv)).toBe(message)
  })
})
