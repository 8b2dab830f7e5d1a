declare module "parse-prometheus-text-format" {
  export interface Family {
    readonly name: string
    readonly type: string
    readonly metrics: ReadonlyArray<{
      readonly value?: string
      readonly labels?: Record<string, string>
      /** A histogram's series: its buckets by `le`, and its count and sum. */
      readonly buckets?: Record<string, string>
      readonly count?: string
      readonly sum?: string
    }>
  }
  const parse: (text: string) => Array<Family>
  export default parse
}
