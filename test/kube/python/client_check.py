"""The Kubernetes Python client (Debian's python3-kubernetes) against Stowage.

Run by test/kube/python.test.ts with the kubeconfig path; prints one JSON report.
"""
import json
import sys
import threading
import time

from kubernetes import client, config, watch

config.load_kube_config(config_file=sys.argv[1])
v1 = client.CoreV1Api()
storage = client.StorageV1Api()
report = {}

events = []
started = threading.Event()


def watcher():
    w = watch.Watch()
    started.set()
    for ev in w.stream(v1.list_persistent_volume, label_selector="from=python", timeout_seconds=8):
        events.append([ev["type"], ev["object"].metadata.name, (ev["object"].metadata.labels or {}).get("step", "")])
        if ev["type"] == "DELETED":
            w.stop()


t = threading.Thread(target=watcher)
t.start()
started.wait()
time.sleep(0.5)

body = {
    "apiVersion": "v1",
    "kind": "PersistentVolume",
    "metadata": {"name": "py-pv", "labels": {"from": "python"}},
    "spec": {"capacity": {"storage": "2Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/tmp/py"}},
}
created = v1.create_persistent_volume(body)
report["created"] = [created.metadata.name, created.spec.capacity["storage"], created.status.phase]
report["list"] = [p.metadata.name for p in v1.list_persistent_volume(label_selector="from=python").items]
patched = v1.patch_persistent_volume("py-pv", {"metadata": {"labels": {"step": "patched"}}})
report["patched"] = patched.metadata.labels
claim = v1.create_namespaced_persistent_volume_claim(
    "team-a",
    {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "py-claim"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
    },
)
report["claim"] = [claim.metadata.namespace, claim.status.phase]
report["classes"] = [c.metadata.name for c in storage.list_storage_class().items]
v1.delete_namespaced_persistent_volume_claim("py-claim", "team-a")
v1.delete_persistent_volume("py-pv")
# kubernetes.io/pv-protection holds the volume until its controller sees it unused: poll, bounded.
report["after_delete"] = "still there"
for _ in range(200):
    try:
        v1.read_persistent_volume("py-pv")
    except client.rest.ApiException as e:
        report["after_delete"] = e.status
        break
    time.sleep(0.05)
try:
    v1.read_persistent_volume("never-was")
except client.rest.ApiException as e:
    report["not_found"] = [e.status, json.loads(e.body)["reason"]]
t.join()
report["events"] = events
print(json.dumps(report))
