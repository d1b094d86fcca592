/**
 * Environment switches that build designs kept only so BENCHMARKS.md can measure them against the
 * default (each is described where it is read). They change `instrument`'s output as options do,
 * so the instrument cache keys on them; they are named here so nothing else in the environment
 * (the cache's own KOMORIUM_TS_*, KOMORIUM_WORKERS, a user's variables) can split its entries.
 */
export const EXPERIMENT_SWITCHES = ['KOMORIUM_CBS_PLACEMENT', 'KOMORIUM_CHECK_FORM', 'KOMORIUM_DUP', 'KOMORIUM_PROBE_METHODS', 'KOMORIUM_TWIN'] as const;

export type ExperimentSwitch = (typeof EXPERIMENT_SWITCHES)[number];

export function experiment(name: ExperimentSwitch): string | undefined {
  return process.env[name];
}

/** The switches that are set, in a fixed order: part of the instrument cache's key. */
export function experimentsSet(): [ExperimentSwitch, string][] {
  return EXPERIMENT_SWITCHES.flatMap((k) => (process.env[k] === undefined ? [] : [[k, process.env[k]!] as [ExperimentSwitch, string]]));
}
