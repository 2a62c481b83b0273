import { setFlagsFromString } from 'node:v8'
import { loadConfig } from '../config.js'
import { EXIT_CODE, loadCommand, usageOf } from './command.js'
import { commands } from './commands/index.js'
import { describeFailure } from './describe-failure.js'
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
    return (result as { [EXIT_CODE]?: number })[EXIT_CODE] ?? 0
  } catch (error) {
    const usage = error instanceof UsageError
    await print(process.stderr, { ok: false, error: usage ? `usage: ${error.message}` : describeFailure(error) })
    return usage ? 2 : 1
  }
}

async function print (stream: NodeJS.WriteStream, value: object): Promise<void> {
  await new Promise(resolve => stream.write(JSON.stringify(value) + '\n', resolve))
}

// Exiting outright: a driver's idle timer must not keep a finished command alive.
process.exit(await main(process.argv.slice(2)))
