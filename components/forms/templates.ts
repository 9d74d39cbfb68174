// Starter manifests for "Create from YAML": one valid object per kind.

export const TEMPLATES: Record<string, string> = {
  PersistentVolume: `apiVersion: v1
kind: PersistentVolume
metadata:
  name: example-volume
  labels:
    type: local
spec:
  capacity:
    storage: 1Gi
  accessModes:
    - ReadWriteOnce
  persistentVolumeReclaimPolicy: Retain
  storageClassName: manual
  hostPath:
    path: /tmp/stowage/example-volume
`,
  PersistentVolumeClaim: `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: example-claim
spec:
  accessModes:
    - ReadWriteOnce
  resources:
    requests:
      storage: 1Gi
  # No storageClassName: the default StorageClass applies. Name one to choose.
`,
  Pod: `apiVersion: v1
kind: Pod
metadata:
  name: example-pod
spec:
  containers:
    - name: app
      image: busybox
      volumeMounts:
        - name: data
          mountPath: /data
  volumes:
    - name: data
      persistentVolumeClaim:
        claimName: example-claim
`,
  StorageClass: `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: example-class
provisioner: kubernetes.io/no-provisioner
reclaimPolicy: Delete
volumeBindingMode: WaitForFirstConsumer
allowVolumeExpansion: false
`,
  Node: `apiVersion: v1
kind: Node
metadata:
  name: example-node
  labels:
    kubernetes.io/hostname: example-node
`,
  Namespace: `apiVersion: v1
kind: Namespace
metadata:
  name: example-namespace
`,
  Event: `apiVersion: v1
kind: Event
metadata:
  name: example-event
involvedObject:
  apiVersion: v1
  kind: PersistentVolume
  name: example-volume
reason: Noted
message: Written by hand from the dashboard
type: Normal
source:
  component: dashboard
`,
  ResourceQuota: `apiVersion: v1
kind: ResourceQuota
metadata:
  name: storage
spec:
  hard:
    requests.storage: 50Gi
    persistentvolumeclaims: "10"
`,
};
