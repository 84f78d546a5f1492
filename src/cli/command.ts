export interface Command {
  readonly summary: string;
  run(args: readonly string[]): Promise<number>;
}
