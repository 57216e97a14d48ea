#!/usr/bin/env python3
"""The launch files of a multi-rank artifact (out/launch/), checked as far as this machine allows.

Usage:
    .venv/bin/python python/telar_testing/launch_files.py --make DIR
        [--telarc build/bin/telarc] [--telar-run build/bin/telar-run]
        [--only k8s-parse,mpijob-parse,dockerfile,bundle,mpirun,mpirun-nodes,k8s-local,sbatch-none]
        [--timeout 120] [--rtol 1e-4] [--atol 1e-4]

Builds the GPT-like model (make_models.py) into DIR, compiles it for 4 ranks
(`telarc gpt.onnx --target cpu --devices 4 -o DIR/artifact`) and for one
device (the reference: `telarc gpt.onnx --target cpu -o DIR/single`, run by
telar-run), then prints one line per check, `PASS NAME (details)` or
`FAIL NAME: message`, and last `launch-files: N passed, N failed`:

    k8s-parse     launch/k8s.yaml: a v1 Secret, a v1 Service and a batch/v1
                  Job, each deserialized into the kubernetes client's model
                  (V1Secret, V1Service, V1Job) and serialized back equal to
                  the YAML (a field the model does not know is lost on the
                  way: a failure); the Job Indexed with completions =
                  parallelism = world size, the Service headless and
                  selecting the Job's pods, the pods' subdomain the Service,
                  TELAR_MASTER_ADDR pod 0's DNS name, TELAR_JOB_TOKEN the
                  Secret's token (256 bits of hex)
    mpijob-parse  launch/k8s-mpijob.yaml: a kubeflow.org/v2beta1 MPIJob
                  (a CRD: its fields checked against the v2beta1 schema's,
                  every pod template round-tripped as V1PodTemplateSpec);
                  workers x slots per worker = world size, the launcher's
                  mpirun -np the world size
    dockerfile    launch/Dockerfile parsed (instructions, line continuations):
                  a Debian 12 base; every COPY source exists in the artifact
                  once scripts/bundle-runtime.sh has filled
                  launch/telar-runtime/; every apt-get package is one of
                  Debian's archive (apt-cache policy, this machine's Debian 12
                  sources)
    bundle        scripts/bundle-runtime.sh DIR/artifact/launch/telar-runtime;
                  the bundled telar-run runs the single-device artifact with
                  LD_LIBRARY_PATH=<bundle>/lib and gives the reference
                  outputs; every library it loaded (LD_DEBUG=files: dlopened
                  OpenBLAS too) is the bundle's or belongs to a Debian package
                  the Dockerfile installs (with their dependencies, dpkg's
                  records) or that debian:12-slim has (Essential and required
                  packages)
    mpirun        launch/mpirun.sh (TELAR_RUN=telar-run) on the inputs:
                  outputs == single-device
    mpirun-nodes  launch/mpirun.sh of the artifact compiled again with
                  --nodes 2 (its plan.json as --plan), TELAR_HOSTFILE listing
                  two "nodes" of 2 slots (node-a, node-b) that OpenMPI's rsh
                  agent (OMPI_MCA_plm_rsh_agent: a script that logs the host
                  and runs the daemon here) starts: daemons on both, outputs
                  == single-device (mpirun -np must be the world size, not
                  the ranks of one node)
    k8s-local     the Indexed Job's pod command line run as 4 local processes
                  with the environment the pods get (the container's env,
                  the Secret's token resolved, JOB_COMPLETION_INDEX=i; the
                  Service DNS name -> 127.0.0.1,
                  the port -> a free one, /data -> DIR/k8s-data holding
                  inputs/NAME.npy, /artifact -> the artifact, telar-run ->
                  --telar-run): outputs (rank 0's /data/outputs) ==
                  single-device
    sbatch-none   launch/slurm.sbatch of the artifact compiled again with
                  --slurm-mpi none (its plan.json as --plan), run by bash as
                  Slurm runs a batch script (a copy in a spool folder, another
                  working directory, SLURM_* variables) with stand-ins for
                  scontrol (the job's Command=, the node list) and srun (4
                  tasks with SLURM_PROCID=i, refusing any --mpi but none):
                  the script finds the artifact and its ranks meet through
                  the TCP rendezvous; outputs == single-device. (The real
                  Slurm, with --mpi=pmix, is scripts/slurm-local.sh's test.)
Exit 1 when a check fails.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_models import output_file_name as file_name  # noqa: E402
from runner import MPI_ENV, kill_commands_on_exit, mpi_session, run_cmd  # noqa: E402
from tensor_compare import compare  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHECKS = ("k8s-parse", "mpijob-parse", "dockerfile", "bundle", "mpirun", "mpirun-nodes",
          "k8s-local", "sbatch-none")
WORLD = 4


class CheckError(Exception):
    pass


def load_yaml_docs(path):
    import yaml
    with open(path) as f:
        return [d for d in yaml.safe_load_all(f) if d is not None]


def round_trip(data, model):
    """`data` (a dict) deserialized into the kubernetes client's `model`
    (e.g. "V1Job") and serialized back; a CheckError naming the fields that
    changed (unknown to the model) otherwise."""
    from kubernetes.client import ApiClient
    api = ApiClient()
    obj = api._ApiClient__deserialize(data, model)
    back = api.sanitize_for_serialization(obj)
    diffs = []
    diff_dicts(data, back, model, diffs)
    if diffs:
        raise CheckError(f"{model}: " + "; ".join(diffs[:5]))
    return obj


def diff_dicts(a, b, path, out):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in a:
            if k not in b:
                out.append(f"{path}.{k} is not a field of the model")
            else:
                diff_dicts(a[k], b[k], f"{path}.{k}", out)
        for k in b:
            if k not in a:
                out.append(f"{path}.{k} appeared")
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f"{path}: {len(a)} items became {len(b)}")
        for i, (x, y) in enumerate(zip(a, b)):
            diff_dicts(x, y, f"{path}[{i}]", out)
    elif a != b:
        out.append(f"{path}: {a!r} became {b!r}")


def pod_env(container, secrets=None):
    """The container's env; a value from a Secret's key taken from `secrets`
    (name -> stringData), as Kubernetes resolves it."""
    env = {}
    for e in container.get("env") or []:
        ref = ((e.get("valueFrom") or {}).get("secretKeyRef") or {})
        env[e["name"]] = ((secrets or {}).get(ref.get("name"), {}).get(ref.get("key"))
                          if ref else e.get("value"))
    return env


# The MPIJob's fields (kubeflow.org/v2beta1, mpi-operator's CRD): spec,
# runPolicy and each replica spec. The pod templates are core v1.
MPIJOB_SPEC = {"slotsPerWorker", "runLauncherAsWorker", "runPolicy", "mpiReplicaSpecs",
               "sshAuthMountPath", "launcherCreationPolicy", "mpiImplementation"}
MPIJOB_RUN_POLICY = {"cleanPodPolicy", "ttlSecondsAfterFinished", "activeDeadlineSeconds",
                     "backoffLimit", "schedulingPolicy", "suspend", "managedBy"}
MPIJOB_REPLICA = {"replicas", "template", "restartPolicy"}


class Checker:
    def __init__(self, a):
        self.a = a
        self.env = dict(os.environ)
        for k, v in MPI_ENV.items():
            self.env.setdefault(k, v)
        self.art = os.path.join(a.make, "artifact")
        self.launch = os.path.join(self.art, "launch")

    # ------------------------------------------------------------ fixtures
    def prepare(self):
        import make_models
        a = self.a
        models = os.path.join(a.make, "models")
        if not os.path.exists(os.path.join(models, "gpt.ort_outputs.npz")):
            if make_models.make(["gpt"], models, "small", check=True, log=lambda s: None):
                raise CheckError("make_models.py gpt failed")
        self.onnx = os.path.join(models, "gpt.onnx")
        with np.load(os.path.join(models, "gpt.inputs.npz")) as z:
            self.inputs = {k: z[k] for k in z.files}
        for d in (self.art, os.path.join(a.make, "single")):
            shutil.rmtree(d, ignore_errors=True)
        self.telarc([self.onnx, "--target", "cpu", "--devices", str(WORLD), "-o", self.art, "-q"])
        self.telarc([self.onnx, "--target", "cpu", "-o", os.path.join(a.make, "single"), "-q"])
        self.manifest = json.load(open(os.path.join(self.art, "manifest.json")))
        if self.manifest.get("world_size") != WORLD:
            raise CheckError(f"the artifact's world_size is {self.manifest.get('world_size')}")
        self.in_dir = os.path.join(a.make, "inputs")
        os.makedirs(self.in_dir, exist_ok=True)
        self.in_args = []
        for inp in self.manifest["inputs"]:
            p = os.path.join(self.in_dir, file_name(inp["name"]) + ".npy")
            np.save(p, self.inputs[inp["name"]])
            self.in_args += ["--input", f"{inp['name']}={p}"]
        out = os.path.join(a.make, "single.out")
        shutil.rmtree(out, ignore_errors=True)
        self.run([a.telar_run, os.path.join(a.make, "single"), "--output-dir", out, "-q",
                  "--threads", "1"] + self.in_args, "single-device telar-run")
        self.reference = self.read_outputs(out)

    def telarc(self, args):
        rc, text, _, _ = run_cmd([self.a.telarc] + args, self.a.timeout)
        if rc != 0:
            raise CheckError(f"telarc {' '.join(args)}: rc={rc}: {text.strip()[-400:]}")

    def run(self, cmd, what, env=None):
        rc, text, _, secs = run_cmd(cmd, self.a.timeout, env or self.env)
        if rc != 0:
            raise CheckError(f"{what}: rc={rc}: {text.strip()[-600:]}")
        return text, secs

    def read_outputs(self, out_dir):
        outs = {}
        for o in self.manifest["outputs"]:
            p = os.path.join(out_dir, file_name(o["name"]) + ".npy")
            if not os.path.exists(p):
                raise CheckError(f"no output {p}")
            outs[o["name"]] = np.load(p)
        return outs

    def compare_outputs(self, out_dir):
        got = self.read_outputs(out_dir)
        worst = 0.0
        for name, ref in self.reference.items():
            ok, mabs, _, msg = compare(got[name], ref, self.a.rtol, self.a.atol)
            if not ok:
                raise CheckError(f"{name} differs from the single-device run: {msg}")
            worst = max(worst, mabs)
        return f"outputs == single-device, max abs err {worst:.1e}"

    # -------------------------------------------------------------- checks
    def check_k8s_parse(self):
        docs = load_yaml_docs(os.path.join(self.launch, "k8s.yaml"))
        kinds = [(d.get("apiVersion"), d.get("kind")) for d in docs]
        if kinds != [("v1", "Secret"), ("v1", "Service"), ("batch/v1", "Job")]:
            raise CheckError(f"k8s.yaml holds {kinds}, not a v1 Secret, a v1 Service "
                             "and a batch/v1 Job")
        secret = round_trip(docs[0], "V1Secret")
        svc = round_trip(docs[1], "V1Service")
        job = round_trip(docs[2], "V1Job")
        s, pod = job.spec, job.spec.template.spec
        problems = []
        if s.completion_mode != "Indexed":
            problems.append(f"completionMode {s.completion_mode}")
        if s.completions != WORLD or s.parallelism != WORLD:
            problems.append(f"completions {s.completions}, parallelism {s.parallelism}")
        if svc.spec.cluster_ip != "None":
            problems.append("the Service is not headless")
        labels = job.spec.template.metadata.labels or {}
        if not svc.spec.selector or any(labels.get(k) != v
                                        for k, v in svc.spec.selector.items()):
            problems.append("the Service does not select the Job's pods")
        if pod.subdomain != svc.metadata.name:
            problems.append(f"the pods' subdomain {pod.subdomain} is not the Service")
        if svc.metadata.namespace != job.metadata.namespace:
            problems.append("the Service and the Job are in different namespaces")
        c = pod.containers[0]
        env = {e.name: e.value for e in c.env}
        token_ref = {e.name: e.value_from for e in c.env}.get("TELAR_JOB_TOKEN")
        ref = token_ref.secret_key_ref if token_ref else None
        if (not ref or ref.name != secret.metadata.name
                or not re.fullmatch(r"[0-9a-f]{64}", (secret.string_data or {}).get(ref.key, ""))):
            problems.append("TELAR_JOB_TOKEN is not the Secret's 256-bit token")
        if secret.metadata.namespace != job.metadata.namespace:
            problems.append("the Secret and the Job are in different namespaces")
        want_addr = f"{job.metadata.name}-0.{svc.metadata.name}"
        if env.get("TELAR_MASTER_ADDR") != want_addr:
            problems.append(f"TELAR_MASTER_ADDR {env.get('TELAR_MASTER_ADDR')}, not {want_addr}")
        if env.get("TELAR_WORLD_SIZE") != str(WORLD):
            problems.append(f"TELAR_WORLD_SIZE {env.get('TELAR_WORLD_SIZE')}")
        port = int(env.get("TELAR_MASTER_PORT", "0"))
        if port not in [p.port for p in svc.spec.ports]:
            problems.append(f"the Service has no port {port}")
        inputs = [c.command[i + 1].split("=")[0] for i, x in enumerate(c.command)
                  if x == "--input"]
        if inputs != [i["name"] for i in self.manifest["inputs"]]:
            problems.append(f"the pod's --input names {inputs}")
        mounts = [m.mount_path for m in c.volume_mounts or []]
        if "/data" not in mounts:
            problems.append("no volume at /data")
        if problems:
            raise CheckError("; ".join(problems))
        return (f"V1Service {svc.metadata.name} + V1Job, Indexed, {WORLD} completions, "
                f"rendezvous {want_addr}:{port}")

    def check_mpijob_parse(self):
        docs = load_yaml_docs(os.path.join(self.launch, "k8s-mpijob.yaml"))
        if len(docs) != 1:
            raise CheckError(f"k8s-mpijob.yaml holds {len(docs)} documents")
        d = docs[0]
        if (d.get("apiVersion"), d.get("kind")) != ("kubeflow.org/v2beta1", "MPIJob"):
            raise CheckError(f"not a kubeflow.org/v2beta1 MPIJob: {d.get('apiVersion')} "
                             f"{d.get('kind')}")
        extra = set(d) - {"apiVersion", "kind", "metadata", "spec"}
        round_trip(d["metadata"], "V1ObjectMeta")
        spec = d["spec"]
        extra |= {f"spec.{k}" for k in set(spec) - MPIJOB_SPEC}
        extra |= {f"spec.runPolicy.{k}" for k in set(spec.get("runPolicy", {})) -
                  MPIJOB_RUN_POLICY}
        replicas = spec.get("mpiReplicaSpecs", {})
        if set(replicas) != {"Launcher", "Worker"}:
            raise CheckError(f"mpiReplicaSpecs has {sorted(replicas)}")
        for role, r in replicas.items():
            extra |= {f"spec.mpiReplicaSpecs.{role}.{k}" for k in set(r) - MPIJOB_REPLICA}
            round_trip(r["template"], "V1PodTemplateSpec")
        if extra:
            raise CheckError("fields the MPIJob v2beta1 schema does not have: " +
                             ", ".join(sorted(extra)))
        workers = replicas["Worker"]["replicas"]
        slots = spec["slotsPerWorker"]
        if workers * slots != WORLD or replicas["Launcher"]["replicas"] != 1:
            raise CheckError(f"{workers} workers x {slots} slots, not {WORLD} ranks")
        cmd = replicas["Launcher"]["template"]["spec"]["containers"][0]["command"]
        if cmd[:3] != ["mpirun", "-np", str(WORLD)] or "telar-run" not in cmd:
            raise CheckError(f"the launcher runs {cmd}")
        return f"MPIJob, {workers} worker x {slots} slots, launcher {' '.join(cmd[:3])}"

    def dockerfile_instructions(self):
        """(instruction, arguments) of launch/Dockerfile: comments dropped,
        backslash continuations joined."""
        out, cur = [], ""
        for line in open(os.path.join(self.launch, "Dockerfile")):
            s = line.rstrip("\n")
            if not cur and (not s.strip() or s.lstrip().startswith("#")):
                continue
            if cur and s.lstrip().startswith("#"):
                continue
            if s.rstrip().endswith("\\"):
                cur += s.rstrip()[:-1] + " "
                continue
            cur += s
            word, _, rest = cur.strip().partition(" ")
            out.append((word.upper(), rest.strip()))
            cur = ""
        if cur:
            raise CheckError("the Dockerfile ends inside a continued line")
        return out

    def dockerfile_packages(self):
        pkgs = set()
        for ins, rest in self.dockerfile_instructions():
            if ins == "RUN":
                for m in re.finditer(r"apt-get install ((?:[-\w.+]+\s*)+)", rest):
                    pkgs |= {w for w in m.group(1).split() if not w.startswith("-")}
        return pkgs

    def check_dockerfile(self):
        known = {"FROM", "RUN", "COPY", "ENV", "CMD", "ENTRYPOINT", "WORKDIR", "ARG",
                 "LABEL", "USER", "EXPOSE", "VOLUME", "SHELL"}
        ins = self.dockerfile_instructions()
        bad = [i for i, _ in ins if i not in known]
        if bad:
            raise CheckError(f"unknown instructions {bad}")
        if not ins or ins[0][0] != "FROM" or not re.match(r"debian:12(-slim)?$|debian:bookworm",
                                                           ins[0][1]):
            raise CheckError(f"the base is not Debian 12: {ins[0] if ins else None}")
        self.bundle()
        copies = 0
        for i, rest in ins:
            if i != "COPY":
                continue
            args = [w for w in rest.split() if not w.startswith("--")]
            for src in args[:-1]:
                copies += 1
                if not os.path.exists(os.path.join(self.art, src)):
                    raise CheckError(f"COPY {src}: not in the build context (the artifact)")
        # Every package is one of Debian 12's (this machine's apt sources).
        pkgs = sorted(self.dockerfile_packages())
        policy = subprocess.run(["apt-cache", "policy"] + pkgs, capture_output=True,
                                text=True).stdout
        sections = dict(re.findall(r"^(\S+):\n((?:[ \t].*\n?)*)", policy, re.M))
        unknown = [p for p in pkgs if p not in sections or
                   "debian.org/debian" not in sections[p]]
        if unknown:
            raise CheckError(f"not packages of Debian's archive: {unknown}")
        return (f"{len(ins)} instructions, base {ins[0][1]}, {copies} COPY sources present, "
                f"packages {' '.join(pkgs)}")

    def bundle(self):
        d = os.path.join(self.launch, "telar-runtime")
        if not os.path.exists(os.path.join(d, "bin", "telar-run")):
            build = os.path.dirname(os.path.dirname(os.path.abspath(self.a.telar_run)))
            self.run(["bash", os.path.join(ROOT, "scripts", "bundle-runtime.sh"), d,
                      "--build", build], "scripts/bundle-runtime.sh")
        return d

    def check_bundle(self):
        d = self.bundle()
        env = dict(self.env, LD_LIBRARY_PATH=os.path.join(d, "lib"), LD_DEBUG="files")
        out = os.path.join(self.a.make, "bundle.out")
        shutil.rmtree(out, ignore_errors=True)
        text, _ = self.run([os.path.join(d, "bin", "telar-run"),
                            os.path.join(self.a.make, "single"), "--output-dir", out,
                            "--threads", "1", "-q"] + self.in_args,
                           "the bundled telar-run", env)
        result = self.compare_outputs(out)
        loaded = set(re.findall(r"calling init: (\S+)", text))
        if not loaded:
            raise CheckError("LD_DEBUG=files listed no library")
        needed = self.package_closure(self.dockerfile_packages()) | self.base_packages()
        bundled, debian, problems = 0, set(), []
        for lib in sorted(loaded):
            real = os.path.realpath(lib)
            if real.startswith(os.path.realpath(d) + os.sep):
                bundled += 1
                continue
            if real.startswith(os.path.realpath(self.a.make) + os.sep):
                continue  # the artifact's program
            pkg = self.owner(real)
            if pkg is None:
                problems.append(f"{real} is neither bundled nor a Debian package's")
            elif pkg not in needed:
                problems.append(f"{real} is {pkg}'s, which the Dockerfile does not install")
            else:
                debian.add(pkg)
        if problems:
            raise CheckError("; ".join(problems))
        return f"{result}; {bundled} bundled libraries, the rest from {len(debian)} packages"

    @staticmethod
    def owner(path):
        for p in (path, path[4:] if path.startswith("/usr/") else "/usr" + path):
            r = subprocess.run(["dpkg", "-S", p], capture_output=True, text=True)
            if r.returncode == 0:
                return r.stdout.split(":")[0].strip()
        return None

    @staticmethod
    def dpkg_fields(names):
        r = subprocess.run(["dpkg-query", "-W", "-f=${Package}\t${Depends}, ${Pre-Depends}\n"]
                           + sorted(names), capture_output=True, text=True)
        out = {}
        for line in r.stdout.splitlines():
            name, _, deps = line.partition("\t")
            out[name] = deps
        return out

    def package_closure(self, roots):
        """`roots` and what they depend on, as installed here (the first
        installed alternative of each dependency)."""
        installed = set(subprocess.run(["dpkg-query", "-W", "-f=${Package}\n"],
                                       capture_output=True, text=True).stdout.split())
        seen, todo = set(), set(roots) & installed
        while todo:
            seen |= todo
            new = set()
            for deps in self.dpkg_fields(todo).values():
                for group in deps.split(","):
                    for alt in group.split("|"):
                        name = alt.strip().split(" ")[0].split(":")[0]
                        if name in installed:
                            new.add(name)
                            break
            todo = new - seen
        return seen

    def base_packages(self):
        r = subprocess.run(["dpkg-query", "-W", "-f=${Package} ${Essential} ${Priority}\n"],
                           capture_output=True, text=True)
        roots = {w[0] for w in (l.split() for l in r.stdout.splitlines())
                 if len(w) == 3 and (w[1] == "yes" or w[2] == "required")}
        return self.package_closure(roots)

    def check_mpirun(self):
        out = os.path.join(self.a.make, "mpirun.out")
        shutil.rmtree(out, ignore_errors=True)
        with mpi_session(dict(self.env, TELAR_RUN=self.a.telar_run)) as env:
            _, secs = self.run([os.path.join(self.launch, "mpirun.sh"), "--output-dir", out,
                                "--threads", "1", "-q"] + self.in_args, "launch/mpirun.sh", env)
        return f"{self.compare_outputs(out)}, {secs:.1f} s"

    def check_mpirun_nodes(self):
        """launch/mpirun.sh of the artifact compiled for 2 nodes of 2 ranks,
        over a hostfile of two "nodes" that OpenMPI reaches through an rsh
        agent starting its daemon here: mpirun must start the world size,
        not a node's share."""
        a = self.a
        art = os.path.join(a.make, "artifact-nodes")
        shutil.rmtree(art, ignore_errors=True)
        self.telarc([self.onnx, "--target", "cpu", "--plan", os.path.join(self.art, "plan.json"),
                     "--nodes", "2", "-o", art, "-q"])
        nodes = os.path.join(a.make, "nodes")
        shutil.rmtree(nodes, ignore_errors=True)
        os.makedirs(nodes)
        hostfile = os.path.join(nodes, "hostfile")
        with open(hostfile, "w") as f:
            f.write(f"node-a slots={WORLD // 2}\nnode-b slots={WORLD // 2}\n")
        log = os.path.join(nodes, "rsh.log")
        agent = os.path.join(nodes, "rsh")
        with open(agent, "w") as f:
            f.write(RSH_AGENT.replace("@LOG@", log))
        os.chmod(agent, 0o755)
        out = os.path.join(a.make, "mpirun-nodes.out")
        shutil.rmtree(out, ignore_errors=True)
        # The two "nodes" share this machine's shared memory, which OpenMPI's
        # vader transport names per node-local rank: rank 0 of node-a and
        # rank 2 of node-b would map the same segments (a crash in
        # mca_btl_vader). Ranks on different machines talk over TCP anyway.
        # The daemons wire up to mpirun directly (routed=direct, OpenMPI's
        # own advice when one daemon fails to reach another's TCP address,
        # as the second "node" sometimes did under load).
        env = dict(self.env, TELAR_RUN=a.telar_run, TELAR_HOSTFILE=hostfile,
                   OMPI_MCA_plm_rsh_agent=agent, OMPI_MCA_btl="self,tcp",
                   OMPI_MCA_routed="direct")
        # Two daemons on one machine still, rarely, fail to wire up under
        # load ("ORTE does not know how to route a message to the specified
        # daemon", mpirun then crashes): before any rank starts, so one more
        # try, said in the result; any other failure fails at once.
        retried = ""
        for attempt in (1, 2):
            try:
                with mpi_session(env) as run_env:
                    _, secs = self.run([os.path.join(art, "launch", "mpirun.sh"), "--output-dir",
                                        out, "--threads", "1", "-q"] + self.in_args,
                                       "launch/mpirun.sh over two nodes", run_env)
                break
            except CheckError as e:
                if attempt == 2 or "ORTE does not know how to route" not in str(e):
                    raise
                retried = " (second try: ORTE's daemons failed to wire up the first time)"
                shutil.rmtree(out, ignore_errors=True)
        started = sorted(set(open(log).read().split())) if os.path.exists(log) else []
        if started != ["node-a", "node-b"]:
            raise CheckError(f"mpirun started daemons on {started}, expected node-a and node-b")
        return f"daemons on node-a, node-b; {self.compare_outputs(out)}, {secs:.1f} s{retried}"

    def check_sbatch_none(self):
        a = self.a
        art = os.path.join(a.make, "artifact-none")
        shutil.rmtree(art, ignore_errors=True)
        self.telarc([self.onnx, "--target", "cpu", "--plan", os.path.join(self.art, "plan.json"),
                     "--slurm-mpi", "none", "-o", art, "-q"])
        script = os.path.join(art, "launch", "slurm.sbatch")
        text = open(script).read()
        for line in ("#SBATCH --nodes=1", f"#SBATCH --ntasks-per-node={WORLD}", "mpi=none"):
            if line not in text.splitlines():
                raise CheckError(f"slurm.sbatch lacks the line {line!r}")
        shims = os.path.join(a.make, "slurm-shims")
        spool = os.path.join(a.make, "slurm-spool")
        submit = os.path.join(a.make, "slurm-submit")
        for d in (shims, spool, submit):
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d)
        for name, body in (("scontrol", SCONTROL), ("srun", SRUN)):
            with open(os.path.join(shims, name), "w") as f:
                f.write(body)
            os.chmod(os.path.join(shims, name), 0o755)
        # Slurm runs a copy of the script, in the submission directory.
        shutil.copy(script, os.path.join(spool, "slurm_script"))
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = str(sock.getsockname()[1])
        env = dict(os.environ, PATH=shims + os.pathsep + os.environ["PATH"],
                   SHIM_SBATCH_SCRIPT=script, SLURM_JOB_ID="7", SLURM_SUBMIT_DIR=submit,
                   SLURM_NTASKS=str(WORLD), SLURM_JOB_NODELIST="localhost",
                   SLURM_CPUS_PER_TASK="1", SLURM_NTASKS_PER_NODE=str(WORLD),
                   TELAR_RUN=a.telar_run, TELAR_MASTER_PORT=port)
        out = os.path.join(a.make, "sbatch.out")
        shutil.rmtree(out, ignore_errors=True)
        rc, text, _, secs = run_cmd(
            ["bash", "-c", 'cd "$1" && shift && exec bash "$@"', "sbatch",
             submit, os.path.join(spool, "slurm_script"), "--output-dir", out, "-q"]
            + self.in_args, a.timeout, env)
        if rc != 0:
            raise CheckError(f"slurm.sbatch: rc={rc}: {text.strip()[-600:]}")
        return f"{self.compare_outputs(out)}, {secs:.1f} s"

    def check_k8s_local(self):
        docs = load_yaml_docs(os.path.join(self.launch, "k8s.yaml"))
        secret, svc, job = docs
        secrets = {secret["metadata"]["name"]: secret.get("stringData") or {}}
        c = job["spec"]["template"]["spec"]["containers"][0]
        dns = f"{job['metadata']['name']}-0.{svc['metadata']['name']}"
        data = os.path.join(self.a.make, "k8s-data")
        shutil.rmtree(data, ignore_errors=True)
        os.makedirs(os.path.join(data, "inputs"))
        for inp in self.manifest["inputs"]:
            np.save(os.path.join(data, "inputs", file_name(inp["name"]) + ".npy"),
                    self.inputs[inp["name"]])
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = str(s.getsockname()[1])

        def local(arg):
            if arg == "telar-run":
                return self.a.telar_run
            if arg == "/artifact":
                return self.art
            return arg.replace("/data/", data + "/")

        cmd = [local(x) for x in c.get("command", []) + c.get("args", [])]
        env = dict(os.environ)
        for name, value in pod_env(c, secrets).items():
            value = value.replace(dns, "127.0.0.1")
            env[name] = port if name == "TELAR_MASTER_PORT" else value
        procs = []
        t0 = time.time()
        for i in range(job["spec"]["completions"]):
            e = dict(env, JOB_COMPLETION_INDEX=str(i))
            procs.append(subprocess.Popen(cmd, env=e, stdout=subprocess.PIPE,
                                          stderr=subprocess.STDOUT, start_new_session=True))
        failed = []
        for i, p in enumerate(procs):
            try:
                out, _ = p.communicate(timeout=self.a.timeout)
            except subprocess.TimeoutExpired:
                for q in procs:
                    q.kill()
                raise CheckError(f"pod {i} timed out after {self.a.timeout}s")
            if p.returncode != 0:
                failed.append(f"pod {i} rc={p.returncode}: "
                              f"{out.decode(errors='replace').strip()[-300:]}")
        secs = time.time() - t0
        if failed:
            raise CheckError("; ".join(failed))
        return f"{self.compare_outputs(os.path.join(data, 'outputs'))}, {secs:.1f} s"


# Stand-ins for Slurm's commands (check sbatch-none).
SCONTROL = r"""#!/bin/sh
# scontrol show job ID | scontrol show hostnames LIST
case "$1 $2" in
  "show job") echo "JobId=$3 JobName=telar"; echo "   Command=$SHIM_SBATCH_SCRIPT" ;;
  "show hostnames") echo 127.0.0.1 ;;
  *) echo "scontrol stand-in: $*" >&2; exit 1 ;;
esac
"""
# OpenMPI's rsh agent for the two local "nodes": the host is logged and
# dropped, the daemon's command line runs here.
RSH_AGENT = r"""#!/bin/sh
while [ $# -gt 0 ]; do case "$1" in -*) shift ;; *) break ;; esac; done
echo "$1" >> '@LOG@'
shift
exec /bin/sh -c "$*"
"""
SRUN = r"""#!/usr/bin/env python3
# srun [--mpi=none] [--cpus-per-task=C] COMMAND...: SLURM_NTASKS tasks.
import os, subprocess, sys
args = sys.argv[1:]
while args and args[0].startswith("--"):
    opt = args.pop(0)
    if opt.startswith("--mpi=") and opt != "--mpi=none":
        sys.exit(f"srun stand-in: {opt}: only --mpi=none (no PMI here)")
n = int(os.environ["SLURM_NTASKS"])
procs = [subprocess.Popen(args, env=dict(os.environ, SLURM_PROCID=str(i), SLURM_LOCALID=str(i),
                                         SLURM_STEP_ID="0", SLURM_STEP_NUM_TASKS=str(n)))
         for i in range(n)]
sys.exit(max(p.wait() for p in procs))
"""


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--make", required=True, help="work directory")
    p.add_argument("--telarc", default=os.path.join(ROOT, "build", "bin", "telarc"))
    p.add_argument("--telar-run", default=os.path.join(ROOT, "build", "bin", "telar-run"))
    p.add_argument("--only", default=",".join(CHECKS))
    p.add_argument("--timeout", type=float, default=120)
    p.add_argument("--rtol", type=float, default=1e-4)
    p.add_argument("--atol", type=float, default=1e-4)
    a = p.parse_args(argv)
    a.make = os.path.abspath(a.make)
    for tool in ("telarc", "telar_run"):
        path = getattr(a, tool)
        setattr(a, tool, shutil.which(path) or path)
    checks = [c.strip() for c in a.only.split(",") if c.strip()]
    unknown = [c for c in checks if c not in CHECKS]
    if unknown:
        p.error(f"unknown checks {unknown} (known: {', '.join(CHECKS)})")
    kill_commands_on_exit()
    os.makedirs(a.make, exist_ok=True)
    ch = Checker(a)
    try:
        ch.prepare()
    except CheckError as e:
        print(f"FAIL prepare: {e}", flush=True)
        print(f"launch-files: 0 passed, {len(checks)} failed")
        return 1
    passed = failed = 0
    for name in checks:
        try:
            detail = getattr(ch, "check_" + name.replace("-", "_"))()
            print(f"PASS {name} ({detail})", flush=True)
            passed += 1
        except CheckError as e:
            print(f"FAIL {name}: {e}", flush=True)
            failed += 1
    print(f"launch-files: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
