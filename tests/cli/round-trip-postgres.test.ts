import { postgresBackend } from './backends.js'
import { describeRoundTrip } from './round-trip.js'

const url = process.env.TEST_DATABASE_URL

describeRoundTrip(
  url ? 'on PostgreSQL while the server runs on the same database' : 'on PostgreSQL (skipped: set TEST_DATABASE_URL)',
  async () => await postgresBackend(url!),
  !url
)
