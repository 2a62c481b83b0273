import type { ConnectResult } from '../connections/connect.js'
import type { MagicRecipient } from './emulator/index.js'

interface BannerInput {
  baseUrl: string
  emulatorUrl: string
  workspaceId: string
  secret: string
  login: { email: string, password: string }
  connection: ConnectResult
  magic: Readonly<Record<string, MagicRecipient>>
  dataDir: string
  receiverUrl: string
  relay: { id: string, url: string }
}

/** The sandbox's sends carry it, so the printed status lookup finds them. */
export const SANDBOX_REFERENCE = 'sandbox-hello'

/** What a newcomer needs to send a first message, printed once the sandbox is ready. */
export function printBanner (input: BannerInput): void {
  const numbers = input.connection.phone_numbers.map(number => `${number.phone_number_id} (${number.display_phone_number})`).join(', ')
  const curl = `curl -s ${input.baseUrl}/api/messages.php \\\n  -H "Authorization: Bearer $OUTBOUND_KEY" \\\n  -H 'Content-Type: application/json' \\\n  -d '{"to":"15551234567","body":"Hello from Outbound","client_reference":"${SANDBOX_REFERENCE}"}'`
  const lookup = `curl -s '${input.baseUrl}/api/messages.php?client_reference=${SANDBOX_REFERENCE}' \\\n  -H "Authorization: Bearer $OUTBOUND_KEY"`
  const magic = Object.entries(input.magic).map(([to, recipient]) => `  ${to}  ${recipient.description}`).join('\n')
  console.log(`
Outbound sandbox is ready: ${input.baseUrl}  (upstream: built-in emulator at ${input.emulatorUrl})

Workspace   ${input.workspaceId} (growth plan), connected; numbers: ${numbers}
API key     Authorization: Bearer ${input.secret}
Dashboard   ${input.baseUrl}/dashboard   (sign in as ${input.login.email} with password ${input.login.password})
Templates   ${input.connection.templates} synced; webhook registered: ${input.connection.webhook_registered}

Send a message (the README's examples use OUTBOUND_KEY too):

export OUTBOUND_KEY=${input.secret}
${curl}

Read its status back (sent, then delivered, then read); ?id=<the id the send answered> adds its whole history:

${lookup}

Events      every event of the demo workspace is POSTed to ${input.receiverUrl}, a local receiver that
            verifies its signature with the standardwebhooks package and prints "[events] verified <type> <webhook-id>" here.
            Add your own endpoint in the dashboard (Developer Studio → Webhooks); local URLs are allowed in the sandbox.

Relay       what Meta sends for the demo workspace is relayed as Meta sent it (relay ${input.relay.id}) to ${input.relay.url},
            which checks X-Hub-Signature-256 with the app secret as Chatwoot and n8n do and prints "[relay] verified …" here.
            Point Chatwoot or n8n at a relay: docs/relay.md (Developer Studio → Relays).

Media       a customer sends a photo as the sandbox starts, and the demo replies with an image uploaded then sent by
            media id (its "[media]" line follows; Dashboard → Inbound shows the photo). Upload your own (from a checkout):
            curl -s ${input.baseUrl}/api/media.php -H "Authorization: Bearer $OUTBOUND_KEY" -F file=@docs/examples/receipt.png

Access      Developer Studio → API keys makes keys limited to some scopes and numbers (a read-only key gets 403
            insufficient_scope on a send); Settings → Audit log lists every change, your sign-in included.

Recipients that fail on purpose:
${magic}

See the log:  DATA_DIR=${input.dataDir} npx outbound messages list --workspace ${input.workspaceId}   (after stopping the sandbox: Ctrl-C)
`)
}
