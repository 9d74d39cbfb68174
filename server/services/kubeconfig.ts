// A kubeconfig for one user's bearer token against the Kubernetes-compatible API.
import { stringify } from 'yaml';

export interface KubeconfigInput {
  server: string;
  user: string;
  token: string;
  caPem?: string;
  namespace?: string;
}

export function renderKubeconfig(k: KubeconfigInput): string {
  const cluster: Record<string, unknown> = { server: k.server };
  if (k.caPem) cluster['certificate-authority-data'] = Buffer.from(k.caPem).toString('base64');
  else cluster['insecure-skip-tls-verify'] = true;
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'stowage', cluster }],
    users: [{ name: k.user, user: { token: k.token } }],
    contexts: [{ name: `${k.user}@stowage`, context: { cluster: 'stowage', user: k.user, namespace: k.namespace ?? 'default' } }],
    'current-context': `${k.user}@stowage`,
    preferences: {},
  });
}
