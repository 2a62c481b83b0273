#!/usr/bin/env node
// `npm run db:functions`: the plpgsql functions are kept as source, one file a function in
// db/functions/ (<name>.sql, one CREATE OR REPLACE FUNCTION), and a changed function reaches the
// databases as a new migration written from its source, never by editing a migration (databases in
// the field have applied them). This writes that migration: the sources whose definition differs
// from the one the migrations leave (the last CREATE of the function, in the journal's order), in
// db/migrations/NNNN_<name>.sql, registered in meta/_journal.json as drizzle-kit registers its own.
// `--check` writes nothing and fails when a source and the migrations differ (what
// tests/house/sql-functions.test.ts asserts). CONTRIBUTING.md, "The database".
//
//   npm run db:functions [-- --name <tag>]      npm run db:functions -- --check
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
const BREAKPOINT = '--> statement-breakpoint'
const CREATE = /CREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+"?(\w+)"?\s*\(/i
const DROP = /^\s*DROP\s+FUNCTION\s+(?:IF\s+EXISTS\s+)?"?(\w+)"?/im

/** A definition as compared: from its CREATE to the end of its statement, whatever the CREATE's case or OR REPLACE. */
function definitionIn (text) {
  const found = CREATE.exec(text)
  if (!found) return undefined
  return { name: found[1], definition: text.slice(found.index).trim().replace(CREATE, `CREATE OR REPLACE FUNCTION "${found[1]}"(`) }
}

/** db/functions/*.sql: name → { file, text, definition }. Each file defines the function it is named after, and nothing else. */
export function functionSources (root = ROOT) {
  const folder = join(root, 'db/functions')
  const sources = new Map()
  for (const file of readdirSync(folder).filter(name => name.endsWith('.sql')).sort()) {
    const text = readFileSync(join(folder, file), 'utf8')
    const found = definitionIn(text)
    const name = file.slice(0, -'.sql'.length)
    if (!found || found.name !== name) throw new Error(`db/functions/${file} must define the function ${name}`)
    if (!/^\s*CREATE\s+OR\s+REPLACE\s+FUNCTION/im.test(text)) throw new Error(`db/functions/${file}: write CREATE OR REPLACE FUNCTION (a migration replaces it)`)
    if (text.includes(BREAKPOINT) || CREATE.test(text.slice(CREATE.exec(text).index + 1))) throw new Error(`db/functions/${file} must hold one function`)
    sources.set(name, { file: `db/functions/${file}`, text, definition: found.definition })
  }
  return sources
}

/** What the migrations leave, in the journal's order: name → { tag, definition } of each function's last CREATE (none once dropped). */
export function migratedFunctions (root = ROOT) {
  const folder = join(root, 'db/migrations')
  const { entries } = JSON.parse(readFileSync(join(folder, 'meta/_journal.json'), 'utf8'))
  const functions = new Map()
  for (const { tag } of entries) {
    for (const statement of readFileSync(join(folder, `${tag}.sql`), 'utf8').split(BREAKPOINT)) {
      const dropped = DROP.exec(statement)
      if (dropped) functions.delete(dropped[1])
      const found = definitionIn(statement)
      if (found) functions.set(found.name, { tag, definition: found.definition })
    }
  }
  return functions
}

/** Every difference between the sources and the migrations: a changed or new source, a function without one. */
export function differences (root = ROOT) {
  const sources = functionSources(root)
  const migrated = migratedFunctions(root)
  const changed = [...sources.values()].filter(source => migrated.get(nameOf(source))?.definition !== source.definition)
  const unsourced = [...migrated.keys()].filter(name => !sources.has(name))
  return { changed, unsourced }
}

/** Writes the migration of the changed sources, and its journal entry; returns its path, or undefined when nothing changed. */
export function generate (root = ROOT, name) {
  const { changed, unsourced } = differences(root)
  if (unsourced.length) throw new Error(`no source in db/functions/ for ${unsourced.join(', ')}: a function dropped is a migration written by hand (DROP FUNCTION)`)
  if (!changed.length) return undefined
  if (name !== undefined && !/^\w+$/.test(name)) throw new Error(`--name ${name}: letters, digits and _ only (it is the migration's tag)`)
  const journalPath = join(root, 'db/migrations/meta/_journal.json')
  const journal = JSON.parse(readFileSync(journalPath, 'utf8'))
  const last = journal.entries.at(-1)
  const idx = last.idx + 1
  const tag = `${String(idx).padStart(4, '0')}_${name ?? changed.map(nameOf).join('_')}`
  const header = [
    '-- Written by `npm run db:functions` from the sources of the functions that changed (CONTRIBUTING.md, "The database"):',
    '-- edit the source in db/functions/ and generate a new migration, never this file.'
  ]
  const statements = changed.map(source => `-- source: ${source.file}\n${source.text.trim()}\n`)
  writeFileSync(join(root, 'db/migrations', `${tag}.sql`), `${header.join('\n')}\n${statements.join(`${BREAKPOINT}\n`)}`)
  // after every earlier entry (drizzle's migrator runs those after the last one a database applied), a second apart as the others
  journal.entries.push({ idx, version: last.version, when: last.when + 1000, tag, breakpoints: true })
  writeFileSync(journalPath, `${JSON.stringify(journal, null, 2)}\n`)
  return join(root, 'db/migrations', `${tag}.sql`)
}

function nameOf (source) {
  return source.file.slice('db/functions/'.length, -'.sql'.length)
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2)
  if (args.includes('--check')) {
    const { changed, unsourced } = differences()
    for (const source of changed) console.error(`${source.file} differs from what the migrations define: npm run db:functions`)
    for (const name of unsourced) console.error(`${name} is defined by the migrations and has no source in db/functions/`)
    process.exit(changed.length || unsourced.length ? 1 : 0)
  }
  const at = args.indexOf('--name')
  const written = generate(ROOT, at >= 0 ? args[at + 1] : undefined)
  console.log(written ? `wrote ${relative(ROOT, written)} and its journal entry` : 'db/functions/ matches the migrations: nothing to write')
}
