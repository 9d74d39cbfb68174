// What the chaos run's parts share: its namespace, printing and waiting.

export const NS = 'chaos';
export const say = (m: string) => process.stdout.write(`${m}\n`);
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

