import { setFlagsFromString } from 'node:v8'
import { DrizzleQueryError } from 'drizzle-orm/errors'
import { ConfigError, loadConfig } from '../config.js'
import { EmbeddedDatabaseBusyError } from '../embedded-lock.js'
import { CommandError, loadCommand, usageOf } from './command.js'
import { commands } from './commands/index.js'
import { UsageError } from './flags.js'
import { parseInvocation } from './invocation.js'

// A command runs for a moment: PGlite's WebAssembly is run as first compiled (Liftoff) instead of
// being compiled again, optimised, in the background; that halved the CPU time and cut the peak RSS
// by a third of a command on the embedded database (bench/RESULTS.md).
setFlagsFromString('--liftoff-only')

/** `outbound …` (CONTRACT.md section 4): one JSON object on stdout and exit 0, or on stderr and exit 1 (2 for wrong usage). */
async function main (argv: string[]): Promise<number> {
  try {
    const invocation = await parseInvocation(argv)
    if (invocation.kind === 'help') {
      const listed = await Promise.all(invocation.names.map(async name => ({ name, command: await loadCommand(commands[name]) })))
      await print(process.stdout, { commands: listed.map(({ name, command }) => ({ usage: usageOf(name, command), does: command.summary })) })
      return 0
    }
    const config = loadConfig()
    // Loaded only now: help and usage errors answer without loading the database drivers.
    const { openRuntime } = await import('../runtime.js')
    const runtime = await openRuntime(config, 'cli')
    let result: object
    try {
      result = await invocation.command.run(invocation.args, runtime, config)
    } finally {
      await runtime.close()
    }
    await print(process.stdout, result)
    return 0
  } catch (error) {
    const usage = error instanceof UsageError
    await print(process.stderr, { ok: false, error: usage ? `usage: ${error.message}` : describe(error) })
    return usage ? 2 : 1
  }
}

function describe (error: unknown): string {
  if (error instanceof ConfigError || error instanceof EmbeddedDatabaseBusyError || error instanceof CommandError) return error.message
  // A failed query's message lists its parameters, which can hold a key's hash: only the driver's reason is shown.
  const reason = error instanceof DrizzleQueryError && error.cause ? error.cause : error
  const message = reason instanceof Error ? reason.message : String(reason)
  return `unexpected error: ${message.split('\n')[0]}`
}

async function print (stream: NodeJS.WriteStream, value: object): Promise<void> {
  await new Promise(resolve => stream.write(JSON.stringify(value) + '\n', resolve))
}

// Exiting outright: a driver's idle timer must not keep a finished command alive.
process.exit(await main(process.argv.slice(2)))
