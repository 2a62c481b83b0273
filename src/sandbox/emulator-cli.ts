import { defaultAccount, startEmulator } from './emulator/index.js'

const account = defaultAccount()
const emulator = await startEmulator({
  port: Number(process.env.EMULATOR_PORT ?? 4010),
  host: process.env.EMULATOR_HOST ?? '127.0.0.1',
  accounts: [account],
  logger: process.env.EMULATOR_LOG === '1'
})

console.log(JSON.stringify({
  url: emulator.url,
  accessToken: account.accessToken,
  appSecret: emulator.appSecret,
  wabaId: account.wabaId,
  phoneNumberIds: account.phoneNumbers.map(number => number.id)
}))

async function shutdown (): Promise<void> {
  await emulator.close()
  process.exit(0)
}
process.once('SIGINT', shutdown)
process.once('SIGTERM', shutdown)
