package main

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// k8sObject is the part of a Kubernetes manifest the test reads: Deployment,
// Service and Job fields side by side, each empty in the other kinds.
type k8sObject struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		// Deployment
		Replicas *int `yaml:"replicas"`
		// Service (a Deployment's selector is a map of maps)
		Type     string         `yaml:"type"`
		Selector map[string]any `yaml:"selector"`
		Ports    []struct {
			Port int `yaml:"port"`
		} `yaml:"ports"`
		// Job
		CompletionMode          string `yaml:"completionMode"`
		Completions             *int   `yaml:"completions"`
		Parallelism             *int   `yaml:"parallelism"`
		BackoffLimitPerIndex    *int   `yaml:"backoffLimitPerIndex"`
		TTLSecondsAfterFinished *int   `yaml:"ttlSecondsAfterFinished"`
		// Deployment and Job
		Template k8sPodTemplate `yaml:"template"`
	} `yaml:"spec"`
}

type k8sPodTemplate struct {
	Metadata struct {
		Labels map[string]string `yaml:"labels"`
	} `yaml:"metadata"`
	Spec struct {
		RestartPolicy string `yaml:"restartPolicy"`
		Affinity      struct {
			PodAntiAffinity struct {
				Preferred []any `yaml:"preferredDuringSchedulingIgnoredDuringExecution"`
				Required  []any `yaml:"requiredDuringSchedulingIgnoredDuringExecution"`
			} `yaml:"podAntiAffinity"`
		} `yaml:"affinity"`
		SecurityContext struct {
			RunAsNonRoot bool `yaml:"runAsNonRoot"`
		} `yaml:"securityContext"`
		Containers []k8sContainer `yaml:"containers"`
		Volumes    []struct {
			Name     string `yaml:"name"`
			EmptyDir any    `yaml:"emptyDir"`
		} `yaml:"volumes"`
	} `yaml:"spec"`
}

type k8sContainer struct {
	Image   string   `yaml:"image"`
	Command []string `yaml:"command"`
	Args    []string `yaml:"args"`
	Env     []struct {
		Name      string `yaml:"name"`
		Value     string `yaml:"value"`
		ValueFrom *struct {
			FieldRef *struct {
				FieldPath string `yaml:"fieldPath"`
			} `yaml:"fieldRef"`
		} `yaml:"valueFrom"`
	} `yaml:"env"`
	ReadinessProbe *struct {
		Exec struct {
			Command []string `yaml:"command"`
		} `yaml:"exec"`
	} `yaml:"readinessProbe"`
	VolumeMounts []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
	Resources struct {
		Requests map[string]string `yaml:"requests"`
	} `yaml:"resources"`
}

// readManifests decodes every document of a multi-document YAML file.
func readManifests(t *testing.T, file string) []k8sObject {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var objs []k8sObject
	dec := yaml.NewDecoder(f)
	for {
		var obj k8sObject
		err := dec.Decode(&obj)
		if errors.Is(err, io.EOF) {
			return objs
		}
		if err != nil {
			t.Fatalf("%s: document %d: %v", file, len(objs)+1, err)
		}
		objs = append(objs, obj)
	}
}

// redisService checks that file holds a Redis Deployment and a ClusterIP
// Service selecting its pods, and returns the Service's name and port.
func redisService(t *testing.T, file string) (name string, port int) {
	t.Helper()
	var deploy, svc *k8sObject
	objs := readManifests(t, file)
	for i := range objs {
		switch objs[i].Kind {
		case "Deployment":
			deploy = &objs[i]
		case "Service":
			svc = &objs[i]
		}
	}
	if deploy == nil || svc == nil {
		t.Fatalf("%s: want a Deployment and a Service, got %d documents", file, len(objs))
	}
	if deploy.Spec.Replicas == nil || *deploy.Spec.Replicas != 1 || len(deploy.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("%s: want one replica of one container", file)
	}
	c := deploy.Spec.Template.Spec.Containers[0]
	if !strings.HasPrefix(c.Image, "redis:") {
		t.Errorf("%s: image %q, want redis:...", file, c.Image)
	}
	if c.ReadinessProbe == nil || strings.Join(c.ReadinessProbe.Exec.Command, " ") != "redis-cli ping" {
		t.Errorf("%s: want a readiness probe running redis-cli ping", file)
	}
	if len(c.Resources.Requests) == 0 {
		t.Errorf("%s: the Redis container requests no resources", file)
	}
	if len(svc.Spec.Selector) == 0 {
		t.Errorf("%s: Service %s selects no pods", file, svc.Metadata.Name)
	}
	for k, v := range svc.Spec.Selector {
		if got, ok := deploy.Spec.Template.Metadata.Labels[k]; !ok || got != v {
			t.Errorf("%s: Service %s selects %s=%s, which the Deployment's pods do not carry", file, svc.Metadata.Name, k, v)
		}
	}
	if svc.Spec.Type != "" && svc.Spec.Type != "ClusterIP" {
		t.Errorf("%s: Service type %s, want ClusterIP", file, svc.Spec.Type)
	}
	if len(svc.Spec.Ports) != 1 {
		t.Fatalf("%s: Service %s has %d ports, want 1", file, svc.Metadata.Name, len(svc.Spec.Ports))
	}
	return svc.Metadata.Name, svc.Spec.Ports[0].Port
}

// The two shell expressions of the Job's command, and what the test puts
// in their place.
const (
	k8sRunIDExpr = `"$RUN_ID"`
	k8sShardExpr = `"$((JOB_COMPLETION_INDEX + 1))/$SHARDS"`
)

// k8sInt formats an optional field: "unset" when absent.
func k8sInt(n *int) string {
	if n == nil {
		return "unset"
	}
	return strconv.Itoa(*n)
}

// k8sFlag returns the value of --name in args.
func k8sFlag(args []string, name string) string {
	for i, a := range args {
		if a == "--"+name && i+1 < len(args) {
			return args[i+1]
		}
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v
		}
	}
	return ""
}

// The manifests in deploy/k8s run the Job's shards against the example
// Redis under test with the witness of their own, with flags lockbench run
// accepts; the README's merge and the Dockerfile fit them. (No cluster runs
// here: the files are checked by parsing them.)
func TestK8sManifests(t *testing.T) {
	witnessName, witnessPort := redisService(t, "../../deploy/k8s/witness.yaml")
	targetName, targetPort := redisService(t, "../../deploy/k8s/redis-under-test.yaml")
	if witnessName == targetName {
		t.Fatalf("the witness and the Redis under test are one Service, %s", witnessName)
	}

	objs := readManifests(t, "../../deploy/k8s/job.yaml")
	if len(objs) != 1 {
		t.Fatalf("job.yaml: %d documents, want 1", len(objs))
	}
	job := objs[0]
	if job.APIVersion != "batch/v1" || job.Kind != "Job" {
		t.Fatalf("job.yaml: %s %s, want batch/v1 Job", job.APIVersion, job.Kind)
	}
	spec, pod := job.Spec, job.Spec.Template.Spec
	if spec.CompletionMode != "Indexed" {
		t.Errorf("completionMode %q, want Indexed: JOB_COMPLETION_INDEX numbers the shards", spec.CompletionMode)
	}
	if spec.BackoffLimitPerIndex == nil || *spec.BackoffLimitPerIndex != 0 {
		t.Errorf("backoffLimitPerIndex %s, want 0: the witness refuses a retried shard, and one shard's failure must not stop the others", k8sInt(spec.BackoffLimitPerIndex))
	}
	if pod.RestartPolicy != "Never" {
		t.Errorf("restartPolicy %q, want Never", pod.RestartPolicy)
	}
	if spec.TTLSecondsAfterFinished == nil {
		t.Errorf("no ttlSecondsAfterFinished")
	}
	if len(pod.Affinity.PodAntiAffinity.Preferred) == 0 || len(pod.Affinity.PodAntiAffinity.Required) != 0 {
		t.Errorf("want a preferred (not required) podAntiAffinity to spread the shards")
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("job.yaml: %d containers, want 1", len(pod.Containers))
	}
	c := pod.Containers[0]

	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
		if e.Name == "RUN_ID" {
			if e.ValueFrom == nil || e.ValueFrom.FieldRef == nil ||
				e.ValueFrom.FieldRef.FieldPath != "metadata.labels['batch.kubernetes.io/controller-uid']" {
				t.Errorf("RUN_ID does not come from a fieldRef on the label batch.kubernetes.io/controller-uid")
			}
		}
	}
	if _, ok := env["RUN_ID"]; !ok {
		t.Errorf("no RUN_ID env")
	}
	shards, err := strconv.Atoi(env["SHARDS"])
	if err != nil || shards < 1 {
		t.Fatalf("SHARDS env %q is not a shard count", env["SHARDS"])
	}
	if spec.Completions == nil || spec.Parallelism == nil || *spec.Completions != shards || *spec.Parallelism != shards {
		t.Errorf("completions %s, parallelism %s, SHARDS %d: want all equal (every shard runs at once)", k8sInt(spec.Completions), k8sInt(spec.Parallelism), shards)
	}

	if len(c.Command) != 3 || path.Base(c.Command[0]) != "sh" || c.Command[1] != "-c" {
		t.Fatalf("command %q, want sh -c SCRIPT", c.Command)
	}
	script := strings.ReplaceAll(c.Command[2], "\\\n", " ")
	for _, want := range []string{"--shard " + k8sShardExpr, "--run-id " + k8sRunIDExpr} {
		if !strings.Contains(script, want) {
			t.Errorf("the command lacks %s:\n%s", want, script)
		}
	}
	_, line, ok := strings.Cut(script, "exec lockbench run ")
	if !ok {
		t.Fatalf("the command does not exec lockbench run:\n%s", script)
	}
	line = strings.ReplaceAll(line, k8sRunIDExpr, "k8s-test")
	for i := 1; i <= shards; i++ {
		shardLine := strings.ReplaceAll(line, k8sShardExpr, fmt.Sprintf("%d/%d", i, shards))
		if strings.Contains(shardLine, "$") {
			t.Fatalf("the command has a shell expression the test does not know: %s", shardLine)
		}
		var args []string
		for _, f := range strings.Fields(shardLine) {
			args = append(args, strings.Trim(f, `"'`))
		}
		o, _, _, err := parseRun(args, io.Discard)
		if err != nil {
			t.Fatalf("shard %d/%d: the command's flags do not parse: %v\n%q", i, shards, err, args)
		}
		if i > 1 {
			continue
		}
		if o.runID != "k8s-test" || o.shard != fmt.Sprintf("1/%d", shards) {
			t.Errorf("parsed run id %q shard %q, want k8s-test 1/%d", o.runID, o.shard, shards)
		}
		for _, u := range []struct {
			flag, host string
			port       int
		}{
			{"witness", witnessName, witnessPort},
			{"target", targetName, targetPort},
		} {
			at, err := url.Parse(k8sFlag(args, u.flag))
			if err != nil {
				t.Errorf("--%s: %v", u.flag, err)
				continue
			}
			if at.Hostname() != u.host || at.Port() != strconv.Itoa(u.port) {
				t.Errorf("--%s %s, want the Service %s:%d", u.flag, at, u.host, u.port)
			}
		}
		// --out must be writable for a non-root user: on a mounted volume.
		mounted := false
		for _, m := range c.VolumeMounts {
			mounted = mounted || (o.out != "" && path.Dir(o.out) == path.Clean(m.MountPath))
		}
		if !mounted {
			t.Errorf("--out %q is not in a mounted volume", o.out)
		}
	}

	readme, err := os.ReadFile("../../deploy/k8s/README.md")
	if err != nil {
		t.Fatal(err)
	}
	merges := 0
	for _, l := range strings.Split(string(readme), "\n") {
		l = strings.TrimSpace(l)
		if !strings.HasPrefix(l, "lockbench merge ") {
			continue
		}
		merges++
		for _, want := range []string{"--witness ", "--run-id ", "-o "} {
			if !strings.Contains(l, want) {
				t.Errorf("README: %q lacks %s", l, want)
			}
		}
	}
	if merges == 0 {
		t.Errorf("README: no `lockbench merge` line")
	}
	for _, want := range []string{"svc/" + witnessName, "job-name=" + job.Metadata.Name, "job/" + job.Metadata.Name} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README does not mention %s", want)
		}
	}

	checkDockerfile(t, pod.SecurityContext.RunAsNonRoot)
}

var (
	dockerFrom = regexp.MustCompile(`(?m)^FROM\s+(\S+)`)
	dockerUser = regexp.MustCompile(`(?m)^USER\s+(\S+)`)
	dockerGo   = regexp.MustCompile(`(?m)^RUN .*go build .*\./cmd/lockbench\s*$`)
)

// checkDockerfile checks that the Dockerfile builds ./cmd/lockbench into a
// runtime image with a shell (the Job's command is sh -c), and, for
// runAsNonRoot, a numeric USER Kubernetes can check.
func checkDockerfile(t *testing.T, runAsNonRoot bool) {
	t.Helper()
	raw, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	df := string(raw)
	if !dockerGo.MatchString(df) {
		t.Errorf("Dockerfile: no RUN ... go build ... ./cmd/lockbench")
	}
	froms := dockerFrom.FindAllStringSubmatch(df, -1)
	if len(froms) < 2 {
		t.Fatalf("Dockerfile: %d stages, want a build and a runtime stage", len(froms))
	}
	runtime := froms[len(froms)-1][1]
	if runtime == "scratch" || strings.Contains(runtime, "distroless") {
		t.Errorf("Dockerfile: runtime image %s has no /bin/sh", runtime)
	}
	if !strings.Contains(df, `ENTRYPOINT ["lockbench"]`) {
		t.Errorf(`Dockerfile: no ENTRYPOINT ["lockbench"]`)
	}
	users := dockerUser.FindAllStringSubmatch(df, -1)
	if len(users) == 0 {
		t.Fatalf("Dockerfile: no USER; the image would run as root")
	}
	user, _, _ := strings.Cut(users[len(users)-1][1], ":")
	if n, err := strconv.Atoi(user); runAsNonRoot && (err != nil || n == 0) {
		t.Errorf("Dockerfile: USER %s; runAsNonRoot needs a numeric non-zero uid", user)
	}
}
