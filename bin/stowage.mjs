#!/usr/bin/env node
// The `stowage` command: runs the TypeScript CLI through tsx.
import { register } from 'tsx/esm/api';

register();
await import('../server/cli/main.ts');
