/**
 * A real SMTP server (smtp-server) on a random loopback port that keeps every message it
 * receives, parsed by mailparser, for tests of the mail the service sends.
 */
import type { AddressInfo } from "node:net"

import { Effect } from "effect"
import type { ParsedMail } from "mailparser"
import { simpleParser } from "mailparser"
import { SMTPServer } from "smtp-server"

export interface CapturedMail {
  readonly envelopeTo: ReadonlyArray<string>
  readonly parsed: ParsedMail
}

export interface SmtpCapture {
  readonly url: string
  readonly messages: Array<CapturedMail>
  /** Waits (in real time, so it works under a TestClock) until `count` messages arrived. */
  readonly waitFor: (count: number, timeoutMs?: number) => Effect.Effect<ReadonlyArray<CapturedMail>>
  /**
   * Answers the next `times` messages to `address` with a failure instead of keeping them: a
   * temporary one (451) unless `responseCode` says otherwise (550: refused for good).
   */
  readonly refuse: (address: string, times: number, responseCode?: number) => void
  /**
   * While on, each message is read in full and then left unanswered: the DATA phase stays open,
   * so the sender cannot know whether it was taken. Such messages go to `held`, not `messages`.
   */
  readonly hold: (on: boolean) => void
  readonly held: Array<CapturedMail>
}

export const smtpCapture = Effect.acquireRelease(
  Effect.callback<{ capture: SmtpCapture; server: SMTPServer }>((resume) => {
    const messages: Array<CapturedMail> = []
    const held: Array<CapturedMail> = []
    let holding = false
    const refusals = new Map<string, number>()
    const refusalCodes = new Map<string, number>()
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS", "AUTH"],
      logger: false,
      onData(stream, session, callback) {
        const refused = session.envelope.rcptTo.find((rcpt) => (refusals.get(rcpt.address) ?? 0) > 0)
        if (refused !== undefined) {
          refusals.set(refused.address, refusals.get(refused.address)! - 1)
          const responseCode = refusalCodes.get(refused.address) ?? 451
          stream.resume()
          return stream.on("end", () =>
            callback(
              // Worded as real servers do, quoting the recipient.
              Object.assign(
                new Error(`<${refused.address}>: ${responseCode >= 500 ? "Mailbox unavailable" : "Try again later"}`),
                { responseCode }
              )
            ))
        }
        if (holding) {
          // No callback: no answer to the data, ever.
          return void simpleParser(stream).then(
            (parsed) => held.push({ envelopeTo: session.envelope.rcptTo.map((rcpt) => rcpt.address), parsed }),
            () => undefined
          )
        }
        simpleParser(stream).then(
          (parsed) => {
            messages.push({ envelopeTo: session.envelope.rcptTo.map((rcpt) => rcpt.address), parsed })
            callback()
          },
          (error: Error) => callback(error)
        )
      }
    })
    // A client that dies mid-session (a SIGKILLed dispatcher) resets its connection: that is the
    // client's business, not a reason to take the capture (and the test process) down.
    server.on("error", () => undefined)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.server.address() as AddressInfo
      const waitFor = (count: number, timeoutMs = 5000) =>
        Effect.promise(async () => {
          const deadline = Date.now() + timeoutMs
          while (messages.length < count && Date.now() < deadline) await new Promise((done) => setTimeout(done, 20))
          return messages.slice()
        })
      const refuse = (address: string, times: number, responseCode = 451) => {
        refusals.set(address, times)
        refusalCodes.set(address, responseCode)
      }
      const hold = (on: boolean) => void (holding = on)
      resume(Effect.succeed({
        server,
        capture: { url: `smtp://127.0.0.1:${port}`, messages, waitFor, refuse, hold, held }
      }))
    })
  }),
  ({ server }) => Effect.promise(() => new Promise<void>((done) => server.close(() => done())))
).pipe(Effect.map(({ capture }) => capture))
