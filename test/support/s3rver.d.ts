/** The part of s3rver's API the tests use (the package ships no types). */
declare module "s3rver" {
  import type { AddressInfo } from "node:net"

  interface S3Event {
    readonly Records: ReadonlyArray<
      { readonly eventName: string; readonly s3: { readonly object: { readonly key: string } } }
    >
  }
  interface Options {
    readonly address?: string
    readonly port?: number
    readonly silent?: boolean
    readonly directory: string
    readonly configureBuckets?: ReadonlyArray<
      { readonly name: string; readonly configs?: ReadonlyArray<string | Buffer> }
    >
  }
  export default class S3rver {
    constructor(options: Options)
    run(): Promise<AddressInfo>
    close(): Promise<void>
    on(event: "event", listener: (event: S3Event) => void): this
  }
}
