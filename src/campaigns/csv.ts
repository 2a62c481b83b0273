import type { Readable } from 'node:stream'
import { CsvError, parse } from 'csv-parse'
import { invalidRequest } from '../errors.js'
import { utf8Start } from './utf8.js'

/** A row as read: its values, or `notUtf8` naming the first column whose cell is not UTF-8 (the row is rejected). */
export type CsvRow = { to?: string, variables?: Record<string, string>, client_reference?: string, notUtf8?: string }

// a cell whose bytes are not UTF-8: never decoded (that would store U+FFFD in their place)
const NOT_UTF8 = Symbol('not UTF-8')
type Cell = string | typeof NOT_UTF8
const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

function decoded (bytes: Uint8Array | undefined): Cell | undefined {
  if (bytes === undefined) return undefined
  try {
    return strict.decode(bytes)
  } catch {
    return NOT_UTF8
  }
}

/**
 * A campaign's CSV (UTF-8, a header row: `to`, one column per body variable, optional
 * `client_reference`), parsed as it streams: each row is handed on at once, so the file is never
 * held whole. An empty cell is an absent value. `onHeader` may refuse the header (422 on `file`).
 * The parser works on bytes and each cell is checked as UTF-8 before it is decoded: a row with a
 * cell that is not is handed on with `notUtf8`; a file that is not UTF-8 (a UTF-16 byte order mark,
 * a header that is not, most of its rows not) is a 422 on `file`.
 */
export async function readCsv (stream: Readable, onHeader: (columns: string[]) => void, onRow: (row: CsvRow) => void): Promise<void> {
  let header: string[] | undefined
  let rows = 0
  let notUtf8 = 0
  const start = utf8Start(reason => notUtf8File(reason))
  // bytes, not strings (encoding null): each cell is decoded here, strictly (a cast function would cost 15× the parse)
  const parser = stream.pipe(start).pipe(parse({ encoding: null, bom: false, relax_column_count: true, skip_empty_lines: true, trim: false, max_record_size: 1 << 20 }))
  stream.on('error', error => parser.destroy(error))
  start.on('error', error => parser.destroy(error))
  try {
    for await (const bytes of parser as AsyncIterable<Uint8Array[]>) {
      if (!header) {
        const cells = bytes.map(decoded)
        if (cells.some(cell => cell === NOT_UTF8 || cell!.includes('\u0000'))) throw notUtf8File('its header row is not')
        header = (cells as string[]).map(column => column.trim())
        if (!header.includes('to')) throw invalidRequest('file: the CSV\'s header row must name a to column (then one column per variable, optional client_reference)', 'file')
        const repeated = header.find((column, index) => header!.indexOf(column) !== index)
        if (repeated !== undefined) throw invalidRequest(`file: the CSV's header names column ${repeated} twice`, 'file')
        onHeader(header)
        continue
      }
      rows += 1
      // cells past the header's columns are not read
      const record = header.map((_, index) => decoded(bytes[index]))
      const invalid = header.find((_, index) => record[index] === NOT_UTF8)
      if (invalid !== undefined) {
        notUtf8 += 1
        onRow({ notUtf8: invalid })
        continue
      }
      onRow(rowOf(header, record as Array<string | undefined>))
    }
  } catch (error) {
    // every parser error is the file's (INVALID_OPENING_QUOTE has no CSV_ prefix); the cell's bytes are not repeated
    if (error instanceof CsvError) throw invalidRequest(`file: the CSV is malformed: ${error.message.replace(/, value is .*$/, '')}`, 'file')
    throw error
  } finally {
    stream.unpipe()
    stream.resume()
  }
  if (!header) throw invalidRequest('file: the CSV is empty; it needs a header row with a to column', 'file')
  if (notUtf8 * 2 > rows) throw notUtf8File(`${notUtf8} of its ${rows} rows are not`)
}

function rowOf (header: string[], record: Array<string | undefined>): CsvRow {
  const row: CsvRow = {}
  header.forEach((column, index) => {
    const value = record[index]
    if (value === undefined || value === '') return
    if (column === 'to') row.to = value.trim()
    else if (column === 'client_reference') row.client_reference = value
    else (row.variables ??= {})[column] = value
  })
  return row
}

const notUtf8File = (reason: string) =>
  invalidRequest(`file: the CSV is not UTF-8 (${reason}); save it as UTF-8 (in Excel: "CSV UTF-8"); nothing was created`, 'file')
