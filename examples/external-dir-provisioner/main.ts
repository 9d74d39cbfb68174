// Runs the example external provisioner until SIGINT/SIGTERM.
//   tsx main.ts --kubeconfig ~/.kube/config --name example.com/dir --root /srv/volumes [--node NAME]
import os from 'node:os';
import { parseArgs } from 'node:util';
import { DirProvisioner } from './provisioner.ts';

const { values } = parseArgs({
  options: {
    kubeconfig: { type: 'string', default: process.env.KUBECONFIG ?? `${os.homedir()}/.kube/config` },
    name: { type: 'string', default: 'example.com/dir' },
    root: { type: 'string' },
    node: { type: 'string', default: os.hostname() },
    'resync-seconds': { type: 'string', default: '30' },
  },
});
if (!values.root) {
  console.error('--root DIR is required: the directory volumes are made in');
  process.exit(2);
}

const provisioner = new DirProvisioner({
  kubeconfig: values.kubeconfig!,
  name: values.name!,
  root: values.root,
  node: values.node!,
  resyncMs: Number(values['resync-seconds']) * 1000,
});
await provisioner.start();

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    provisioner.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
