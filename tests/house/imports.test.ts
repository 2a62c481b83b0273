import { fileURLToPath } from 'node:url'
import { parseCircular, parseDependencyTree, type DependencyTree } from 'dpdm'
import { beforeAll, describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const ENTRIES = ['src/**/*.{ts,mjs,js}', 'plugins/**/*.ts', 'routes/**/*.ts', 'db/**/*.ts']

/**
 * What the store may stand on: the database, itself, and the rooms below it, which import nothing of
 * ours but db/ (src/resources: the API's shapes of a record; src/crypto: pure functions; the upstream's
 * types; the cause walker and the database's part of the fault classification, so the store's batcher
 * classifies as everything else does; the `jobs` table's SQL, src/work/jobs.ts, and the names of the
 * send queues: the runner owns the table, and a store that writes jobs in its transaction calls it,
 * tests/house/jobs.test.ts). Anything else is above the store: a store file reaching it closes a
 * circle sooner or later (the runner itself, src/work/runner.ts, stands on the store).
 */
const BELOW_THE_STORE = [/^db\//, /^src\/store\//, /^src\/resources\//, /^src\/crypto\//, /^src\/upstream\/types\.ts$/, /^src\/faults\/(causes|database)\.ts$/, /^src\/work\/(jobs|send-queues)\.ts$/]

describe('the house: imports', () => {
  let tree: DependencyTree
  beforeAll(async () => {
    // transform: false keeps `import type`: a circle through types is a circle all the same
    tree = await parseDependencyTree(ENTRIES, { cwd: ROOT, context: ROOT, transform: false, tsconfig: `${ROOT}/tsconfig.json` })
  })

  it('reads every file, type-only imports included', () => {
    expect(Object.keys(tree).filter(id => id.startsWith('src/store/')).length).toBeGreaterThan(20)
    // connections.ts imports the upstream's types only (`import type`): the edge must be seen
    expect(importsOf(tree, 'src/store/connections.ts')).toContain('src/upstream/types.ts')
  })

  it('has no import cycle in src/, plugins/, routes/ or db/', () => {
    expect(parseCircular(tree).map(cycle => cycle.join(' → '))).toEqual([])
  })

  it('keeps the store the floor: no file of src/store reaches anything above it', () => {
    const above = Object.keys(tree).filter(id => id.startsWith('src/store/')).flatMap(file =>
      [...reachable(tree, file)].filter(id => !BELOW_THE_STORE.some(floor => floor.test(id))).map(id => `${file} → … → ${id}`))
    expect(above).toEqual([])
  })
})

function importsOf (tree: DependencyTree, file: string): string[] {
  // a package's id is its path under node_modules; a builtin's is its name (`node:fs`)
  return (tree[file] ?? []).map(dependency => dependency.id).filter((id): id is string => id !== null && !id.includes('node_modules') && /\.[cm]?[jt]s$/.test(id))
}

/** Every project file `file` imports, directly or not. */
function reachable (tree: DependencyTree, file: string): Set<string> {
  const seen = new Set<string>()
  const next = importsOf(tree, file)
  while (next.length > 0) {
    const id = next.pop()!
    if (seen.has(id)) continue
    seen.add(id)
    next.push(...importsOf(tree, id))
  }
  return seen
}
