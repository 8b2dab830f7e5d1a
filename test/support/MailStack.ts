/** A test server whose mail goes to a real SMTP server the test reads (`SmtpCapture`). */
import { Context, Effect, Layer } from "effect"

import type { SmtpCapture } from "./SmtpCapture.js"
import { smtpCapture } from "./SmtpCapture.js"
import { TestServer } from "./TestServer.js"

/** The SMTP server the stack's SMTP_URL points at. */
export class Smtp extends Context.Service<Smtp, SmtpCapture>()("test/Smtp") {}

/** The stack's PUBLIC_URL, which mail links start with. */
export const publicUrl = "https://status.example.test"

/** `TestServer` with SMTP_URL on a fresh capture, plus `layer` (the dispatcher, or the mailer alone) on it. */
export const withSmtp = <A, E, R>(layer: Layer.Layer<A, E, R>) =>
  Layer.unwrap(
    Effect.map(smtpCapture, (smtp) =>
      layer.pipe(
        Layer.provideMerge(TestServer({ SMTP_URL: smtp.url, MAIL_FROM: "status@example.test", PUBLIC_URL: publicUrl })),
        Layer.merge(Layer.succeed(Smtp, smtp))
      ))
  )
