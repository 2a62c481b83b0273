import type { Readable } from 'node:stream'
import { parse } from 'csv-parse'
import { invalidRequest } from '../errors.js'

export type CsvRow = { to?: string, variables?: Record<string, string>, client_reference?: string }

/**
 * A campaign's CSV (UTF-8, a header row: `to`, one column per body variable, optional
 * `client_reference`), parsed as it streams: each row is handed on at once, so the file is never
 * held whole. An empty cell is an absent value. `onHeader` may refuse the header (422 on `file`).
 */
export async function readCsv (stream: Readable, onHeader: (columns: string[]) => void, onRow: (row: CsvRow) => void): Promise<void> {
  let header: string[] | undefined
  const parser = stream.pipe(parse({ bom: true, relax_column_count: true, skip_empty_lines: true, trim: false, max_record_size: 1 << 20 }))
  stream.on('error', error => parser.destroy(error))
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      if (!header) {
        header = record.map(column => column.trim())
        if (!header.includes('to')) throw invalidRequest('file: the CSV\'s header row must name a to column (then one column per variable, optional client_reference)', 'file')
        const repeated = header.find((column, index) => header!.indexOf(column) !== index)
        if (repeated !== undefined) throw invalidRequest(`file: the CSV's header names column ${repeated} twice`, 'file')
        onHeader(header)
        continue
      }
      const row: CsvRow = {}
      header.forEach((column, index) => {
        const value = record[index]
        if (value === undefined || value === '') return
        if (column === 'to') row.to = value.trim()
        else if (column === 'client_reference') row.client_reference = value
        else (row.variables ??= {})[column] = value
      })
      onRow(row)
    }
  } catch (error) {
    if ((error as { code?: string }).code?.startsWith('CSV_')) throw invalidRequest(`file: the CSV is malformed: ${(error as Error).message}`, 'file')
    throw error
  } finally {
    stream.resume()
  }
  if (!header) throw invalidRequest('file: the CSV is empty; it needs a header row with a to column', 'file')
}
