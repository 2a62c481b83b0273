import { parseArgs } from 'node:util'
import { loadCommand, usageOf, type Command } from './command.js'
import { commands } from './commands/index.js'
import { UsageError } from './flags.js'

export type Invocation =
  | { kind: 'help', names: string[] }
  | { kind: 'run', command: Command, args: Record<string, unknown> }

/**
 * Reads argv into a command and its validated flags, or a request for help; throws a UsageError that
 * carries the usage line. Imports the named command's module (its flags are defined there), no other.
 */
export async function parseInvocation (argv: string[]): Promise<Invocation> {
  if (argv.length === 0 || argv[0] === 'help') return help(argv.slice(1))
  if (argv.includes('--help') || argv.includes('-h')) return help(argv)
  const words = leadingWords(argv)
  const name = commandName(words)
  if (!name) {
    const group = groupOf(words[0])
    const problem = words.length === 0 ? 'missing command' : `unknown command ${JSON.stringify(words.join(' '))}`
    const hint = group.length > 0 ? `did you mean ${group.join(', ')}?` : 'run "outbound help" for the list'
    throw new UsageError(`outbound <command> [flags] (${problem}; ${hint})`)
  }
  const command = await loadCommand(commands[name])
  try {
    return { kind: 'run', command, args: parseFlags(command, argv.slice(name.split(' ').length)) }
  } catch (error) {
    if (error instanceof UsageError) throw new UsageError(`${usageOf(name, command)} (${error.message})`)
    throw error
  }
}

function help (argv: string[]): Invocation {
  const words = leadingWords(argv)
  const name = commandName(words)
  const group = groupOf(words[0])
  return { kind: 'help', names: name ? [name] : group.length > 0 ? group : Object.keys(commands) }
}

function leadingWords (argv: string[]): string[] {
  const firstFlag = argv.findIndex(word => word.startsWith('-'))
  return argv.slice(0, firstFlag === -1 ? 2 : Math.min(firstFlag, 2))
}

function commandName (words: string[]): string | undefined {
  return [words.join(' '), words[0]].find(name => name !== undefined && Object.hasOwn(commands, name))
}

/** `keys` → keys create, keys revoke, keys list */
function groupOf (word: string | undefined): string[] {
  return Object.keys(commands).filter(name => name.split(' ')[0] === word)
}

// Tokens rather than strict mode: each mistake gets a message of ours instead of Node's paragraph.
function parseFlags (command: Command, argv: string[]): Record<string, unknown> {
  const { tokens } = parseArgs({ args: argv, options: {}, strict: false, allowPositionals: true, tokens: true })
  const raw = new Map<string, string>()
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]
    if (token.kind === 'positional') throw new UsageError(`unexpected argument ${JSON.stringify(token.value)}`)
    if (token.kind === 'option-terminator') throw new UsageError('unexpected "--"')
    if (!Object.hasOwn(command.flags, token.name)) throw new UsageError(`unknown flag ${token.rawName}`)
    if (raw.has(token.name)) throw new UsageError(`--${token.name} given twice`)
    if (command.flags[token.name].switch) {
      if (token.inlineValue) throw new UsageError(`--${token.name} takes no value`)
      raw.set(token.name, '')
      continue
    }
    if (token.inlineValue) {
      raw.set(token.name, token.value ?? '')
      continue
    }
    const next = tokens[i + 1]
    if (next?.kind !== 'positional') throw new UsageError(`--${token.name} needs a value`)
    raw.set(token.name, next.value)
    i++
  }
  return Object.fromEntries(Object.entries(command.flags).map(([flag, spec]) => [flag, spec.parse(raw.get(flag), flag)]))
}
