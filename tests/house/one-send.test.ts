import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const SEND = 'src/send/'

/** Every .ts file under the folders the app is made of. */
function sources (): Array<{ path: string, text: string }> {
  const files: string[] = []
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name)
      if (statSync(full).isDirectory()) walk(full)
      else if (full.endsWith('.ts')) files.push(full)
    }
  }
  for (const top of ['src', 'routes', 'plugins']) walk(join(ROOT, top))
  return files.map(full => ({ path: relative(ROOT, full), text: readFileSync(full, 'utf8') }))
}

/**
 * The steps of a send only the send service takes (docs/decisions/040-one-send.md): dispatching a
 * record, asking the audience rules and the service window, writing a send's record (the store's one `create`, the queue's hand-over), and freeing a
 * messaging-limit slot. Where each may be named besides src/send/: its definition, and the plugin
 * that hands it to the service.
 */
const STEPS: Array<{ step: string, pattern: RegExp, allowed: string[] }> = [
  // the send service's own dispatch (send.dispatch) is how the drain sends; undici's is not ours
  { step: 'dispatch a record', pattern: /(?<!send)\.dispatch\(/, allowed: ['src/upstream/send-transport.ts'] },
  { step: 'ask the audience rules', pattern: /\.decide\(|\bcheckServiceWindow\(/, allowed: ['plugins/service-window.ts'] },
  { step: 'create a send\'s record', pattern: /\bmessages\.create\(|\.createPending\w*\(/, allowed: [] },
  { step: 'hand a send over to the queue', pattern: /\.handOver\(/, allowed: ['plugins/send.ts', 'plugins/send-queue.ts'] },
  { step: 'give back a messaging-limit slot', pattern: /\.giveBack\(/, allowed: ['plugins/send.ts'] }
]

describe('the house: one send', () => {
  const files = sources()

  it('reads the source', () => {
    expect(files.some(file => file.path === 'routes/messages.ts')).toBe(true)
    expect(files.some(file => file.path.startsWith(SEND))).toBe(true)
  })

  it('keeps POST /api/messages.php\'s handler to 20 lines', () => {
    const text = files.find(file => file.path === 'routes/messages.ts')!.text
    const lines = text.split('\n')
    const start = lines.findIndex(line => line.includes('async function sendMessage'))
    expect(start).toBeGreaterThan(-1)
    const end = lines.findIndex((line, index) => index > start && /^ {2}\}\)$/.test(line))
    expect(end - start + 1).toBeLessThanOrEqual(20)
  })

  it('has one copy of the send flow: no file outside src/send/ takes a send\'s steps', () => {
    const found = files.filter(file => !file.path.startsWith(SEND)).flatMap(file => STEPS
      .filter(({ pattern, allowed }) => pattern.test(file.text) && !allowed.includes(file.path))
      .map(({ step }) => `${file.path}: ${step}`))
    expect(found).toEqual([])
  })
})
