// Writes docs.parquet with another Parquet implementation than neardup's
// (hyparquet-writer), and reads a Parquet file back with hyparquet: see
// make.sh, which runs both around neardup's keep.
//
//   node make.mjs write FILE   the table: real text (man pages), planted
//                              near-copies, and columns of other types
//   node make.mjs read FILE    prints the schema and the rows as JSON lines
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'
import { parquetWriteBuffer } from 'hyparquet-writer'
import { parquetMetadata, parquetReadObjects, parquetSchema } from 'hyparquet'

const [mode, file] = process.argv.slice(2)

if (mode === 'write') {
  const dir = '/usr/share/man/man1'
  const names = readdirSync(dir).filter(n => n.endsWith('.1.gz')).sort().slice(0, 160)
  const rows = []
  for (const name of names) {
    const text = gunzipSync(readFileSync(`${dir}/${name}`)).toString('utf8').slice(0, 3000)
    rows.push({ id: `man1/${name.replace(/\.gz$/, '')}`, text })
  }
  // Near-copies: every eighth page again, one line changed.
  for (let i = 0; i < names.length; i += 8) {
    const lines = rows[i].text.split('\n')
    lines[Math.floor(lines.length / 2)] = 'a line changed in the copy'
    rows.push({ id: `${rows[i].id}.copy`, text: lines.join('\n') })
  }
  const n = rows.length
  writeFileSync(file, Buffer.from(parquetWriteBuffer({
    columnData: [
      { name: 'id', data: rows.map(r => r.id), type: 'STRING' },
      { name: 'text', data: rows.map(r => r.text), type: 'STRING' },
      { name: 'num', data: rows.map((r, i) => BigInt(1000 + 7 * i)), type: 'INT64' },
      { name: 'chars', data: rows.map(r => r.text.length), type: 'INT32' },
      { name: 'score', data: rows.map((r, i) => i / 8), type: 'DOUBLE' },
      { name: 'copy', data: rows.map(r => r.id.endsWith('.copy')), type: 'BOOLEAN' },
      { name: 'seen', data: rows.map((r, i) => new Date(Date.UTC(2024, 0, 1) + i * 3600e3)), type: 'TIMESTAMP' },
      { name: 'note', data: rows.map((r, i) => i % 5 === 0 ? null : `note ${i}`), type: 'STRING' },
    ],
    rowGroupSize: 50,
  })))
  console.error(`${file}: ${n} rows`)
} else if (mode === 'read') {
  const buf = readFileSync(file)
  const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength)
  const meta = parquetMetadata(ab)
  const schema = parquetSchema(meta)
  console.log(JSON.stringify(schema.children.map(c => [c.element.name, c.element.type, c.element.converted_type ?? null])))
  console.log(JSON.stringify({ row_groups: meta.row_groups.length, rows: Number(meta.num_rows) }))
  const rows = await parquetReadObjects({ file: ab })
  for (const r of rows) {
    console.log(JSON.stringify(r, (k, v) => typeof v === 'bigint' ? v.toString() : v))
  }
} else {
  console.error('usage: node make.mjs write|read FILE')
  process.exit(2)
}
