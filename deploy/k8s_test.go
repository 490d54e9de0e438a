package deploy

import (
	"bytes"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"

	"github.com/contrack/contrack/cmd/contrack/roles"
)

// kustomization is the part of kustomize's Kustomization type these
// manifests use; decoding strictly into it refuses anything else, so a
// field added to a kustomization.yaml must be added (and checked) here.
type kustomization struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Namespace  string   `json:"namespace,omitempty"`
	Resources  []string `json:"resources"`
	Labels     []struct {
		Pairs map[string]string `json:"pairs"`
	} `json:"labels,omitempty"`
	Images []struct {
		Name    string `json:"name"`
		NewName string `json:"newName,omitempty"`
		NewTag  string `json:"newTag,omitempty"`
	} `json:"images,omitempty"`
	Replicas []struct {
		Name  string `json:"name"`
		Count int    `json:"count"`
	} `json:"replicas,omitempty"`
	Patches []struct {
		Path string `json:"path"`
	} `json:"patches,omitempty"`
}

// object is one decoded manifest document.
type object struct {
	File string
	Kind string
	Name string
	Obj  any
}

// newTyped returns the Kubernetes API type of a kind the manifests may use.
func newTyped(apiVersion, kind string) (any, error) {
	switch apiVersion + " " + kind {
	case "apps/v1 Deployment":
		return &appsv1.Deployment{}, nil
	case "v1 Service":
		return &corev1.Service{}, nil
	case "v1 ConfigMap":
		return &corev1.ConfigMap{}, nil
	case "v1 Secret":
		return &corev1.Secret{}, nil
	case "v1 Namespace":
		return &corev1.Namespace{}, nil
	case "networking.k8s.io/v1 Ingress":
		return &networkingv1.Ingress{}, nil
	case "networking.k8s.io/v1 NetworkPolicy":
		return &networkingv1.NetworkPolicy{}, nil
	case "autoscaling/v2 HorizontalPodAutoscaler":
		return &autoscalingv2.HorizontalPodAutoscaler{}, nil
	case "policy/v1 PodDisruptionBudget":
		return &policyv1.PodDisruptionBudget{}, nil
	case "batch/v1 Job":
		return &batchv1.Job{}, nil
	}
	return nil, fmt.Errorf("unexpected %s %s", apiVersion, kind)
}

// decodeManifests strictly decodes every document of a YAML file into its
// API type: unknown or duplicate fields are errors. A strategic-merge
// delete directive ($patch: delete) is accepted in patches.
func decodeManifests(file string, data []byte, patch bool) ([]object, error) {
	var out []object
	for i, doc := range bytes.Split(data, []byte("\n---")) {
		var meta metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			return nil, fmt.Errorf("%s doc %d: %w", file, i, err)
		}
		if meta.Kind == "" {
			if len(bytes.TrimSpace(stripComments(doc))) == 0 {
				continue
			}
			return nil, fmt.Errorf("%s doc %d: no kind", file, i)
		}
		if patch {
			doc = bytes.Replace(doc, []byte("$patch: delete\n"), nil, 1)
		}
		obj, err := newTyped(meta.APIVersion, meta.Kind)
		if err != nil {
			return nil, fmt.Errorf("%s doc %d: %w", file, i, err)
		}
		if err := yaml.UnmarshalStrict(doc, obj); err != nil {
			return nil, fmt.Errorf("%s doc %d (%s): %w", file, i, meta.Kind, err)
		}
		out = append(out, object{File: file, Kind: meta.Kind, Name: obj.(metav1.Object).GetName(), Obj: obj})
	}
	return out, nil
}

func stripComments(b []byte) []byte {
	var out []byte
	for _, l := range bytes.Split(b, []byte("\n")) {
		if t := bytes.TrimSpace(l); len(t) > 0 && t[0] != '#' {
			out = append(out, l...)
		}
	}
	return out
}

// kustomize reads dir's kustomization strictly, checks every resource and
// patch it names exists, and decodes them: resources (and nested
// kustomizations) into objects, patches separately.
func kustomize(t *testing.T, dir string) (k kustomization, objs, patches []object) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(b, &k); err != nil {
		t.Fatalf("%s/kustomization.yaml: %v", dir, err)
	}
	if k.APIVersion != "kustomize.config.k8s.io/v1beta1" || k.Kind != "Kustomization" {
		t.Errorf("%s/kustomization.yaml: %s %s", dir, k.APIVersion, k.Kind)
	}
	for _, r := range k.Resources {
		p := filepath.Join(dir, r)
		st, err := os.Stat(p)
		if err != nil {
			t.Errorf("%s: resource %s: %v", dir, r, err)
			continue
		}
		if st.IsDir() {
			_, sub, _ := kustomize(t, p)
			objs = append(objs, sub...)
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		o, err := decodeManifests(p, data, false)
		if err != nil {
			t.Error(err)
		}
		objs = append(objs, o...)
	}
	for _, pt := range k.Patches {
		p := filepath.Join(dir, pt.Path)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Errorf("%s: patch %s: %v", dir, pt.Path, err)
			continue
		}
		o, err := decodeManifests(p, data, true)
		if err != nil {
			t.Error(err)
		}
		patches = append(patches, o...)
	}
	return k, objs, patches
}

func find[T any](objs []object, name string) (T, bool) {
	for _, o := range objs {
		if v, ok := o.Obj.(T); ok && o.Name == name {
			return v, true
		}
	}
	var zero T
	return zero, false
}

// TestManifestDecodeIsStrict: a misspelt field fails decoding.
func TestManifestDecodeIsStrict(t *testing.T) {
	bad := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\nspec:\n  replica: 2\n"
	if _, err := decodeManifests("bad.yaml", []byte(bad), false); err == nil || !strings.Contains(err.Error(), "replica") {
		t.Fatalf("unknown field accepted (err %v)", err)
	}
	dup := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  name: y\n"
	if _, err := decodeManifests("dup.yaml", []byte(dup), false); err == nil {
		t.Fatal("duplicate field accepted")
	}
	if _, err := decodeManifests("kind.yaml", []byte("apiVersion: v1\nkind: Pod\n"), false); err == nil {
		t.Fatal("unexpected kind accepted")
	}
}

// TestK8sBase: one Deployment per stage running its role, probes on the
// ports its configuration opens, non-root read-only containers with
// resources, and every variable one the binary reads.
func TestK8sBase(t *testing.T) {
	_, objs, _ := kustomize(t, "k8s/base")
	table := configTable(t)
	cmds := commands(t)
	cm, ok := find[*corev1.ConfigMap](objs, "contrack-config")
	if !ok {
		t.Fatal("no ConfigMap contrack-config")
	}
	secret, ok := find[*corev1.Secret](objs, "contrack-secrets")
	if !ok {
		t.Fatal("no Secret contrack-secrets")
	}
	for name := range cm.Data {
		if !knownVar(table, name) {
			t.Errorf("ConfigMap: %s is not in cmd/contrack/config.go's table", name)
		} else if table[name].Secret {
			t.Errorf("ConfigMap: %s is secret; it belongs in the Secret", name)
		}
	}
	for name := range secret.StringData {
		if !knownVar(table, name) {
			t.Errorf("Secret: %s is not in cmd/contrack/config.go's table", name)
		}
	}
	for _, want := range []string{"CONTRACK_PG_URL", "CONTRACK_CLICKHOUSE_ADDR", "KAFKA_BROKERS"} {
		if _, ok := secret.StringData[want]; !ok {
			t.Errorf("Secret lacks %s", want)
		}
	}
	// The secret key is never shipped: no manifest holds a value for it.
	if _, ok := secret.StringData["CONTRACK_SECRET_KEY"]; ok {
		t.Errorf("the base Secret ships a CONTRACK_SECRET_KEY")
	}
	if _, ok := find[*corev1.Secret](objs, secretKeySecret); ok {
		t.Errorf("the base defines the Secret %s: it must be created out of band", secretKeySecret)
	}

	for _, r := range deployedRoles(t) {
		role := r.Name
		d, ok := find[*appsv1.Deployment](objs, "contrack-"+role)
		if !ok {
			t.Errorf("no Deployment contrack-%s for the role %s of cmd/contrack/roles", role, role)
			continue
		}
		pod := d.Spec.Template.Spec
		if len(pod.Containers) != 1 {
			t.Fatalf("%s: %d containers", role, len(pod.Containers))
		}
		c := pod.Containers[0]
		if !slices.Equal(c.Args, []string{role}) {
			t.Errorf("%s: args %v, want [%s]", role, c.Args, role)
		}
		checkReplicas(t, r, d, objs)
		if d.Spec.Selector == nil || !selects(d.Spec.Selector.MatchLabels, d.Spec.Template.Labels) {
			t.Errorf("%s: selector does not select its pods", role)
		}
		env := containerEnv(t, c, cm, secret)
		for name := range env {
			if !knownVar(table, name) {
				t.Errorf("%s: %s is not in cmd/contrack/config.go's table", role, name)
			}
		}
		if r.SecretKey && env["CONTRACK_SECRET_KEY"] != "secretKeyRef:"+secretKeySecret+"/CONTRACK_SECRET_KEY" {
			// Without it each pod would generate a key of its own.
			t.Errorf("%s: CONTRACK_SECRET_KEY is %q, want it from the Secret %s (required, never shipped)", role, env["CONTRACK_SECRET_KEY"], secretKeySecret)
		}
		checkPorts(t, r, c, env)
		checkProbes(t, r, c)
		checkHardened(t, role, pod, c, env)
	}
	for _, o := range objs {
		d, ok := o.Obj.(*appsv1.Deployment)
		if !ok {
			continue
		}
		if args := d.Spec.Template.Spec.Containers[0].Args; len(args) == 0 || !cmds[args[0]] {
			t.Errorf("%s: args %v are not a role of cmd/contrack/roles nor a tool of cmd/contrack/main.go", d.Name, args)
		} else if r, ok := roles.Lookup(args[0]); ok && (!r.Deployed || d.Name != "contrack-"+r.Name) {
			t.Errorf("%s: runs the role %s (deployed %v) under another name", d.Name, r.Name, r.Deployed)
		}
	}

	job, ok := find[*batchv1.Job](objs, "contrack-migrate")
	if !ok {
		t.Fatal("no migration Job contrack-migrate")
	}
	jc := job.Spec.Template.Spec.Containers[0]
	if !slices.Equal(jc.Args, []string{"migrate"}) {
		t.Errorf("migration Job args %v", jc.Args)
	}
	checkHardened(t, "migrate", job.Spec.Template.Spec, jc, containerEnv(t, jc, cm, secret))

	// The client address header is believed only from the proxies' networks.
	if cm.Data["CONTRACK_CLIENT_IP_HEADER"] != "" {
		ps := strings.Split(cm.Data["CONTRACK_TRUSTED_PROXIES"], ",")
		if _, err := netip.ParsePrefix(strings.TrimSpace(ps[0])); err != nil {
			t.Errorf("CONTRACK_CLIENT_IP_HEADER without valid CONTRACK_TRUSTED_PROXIES (%q): %v", cm.Data["CONTRACK_TRUSTED_PROXIES"], err)
		}
	}
	checkScaling(t, objs)
	checkAPIExposure(t, objs, cm)
	checkNetworkPolicy(t, objs)
}

// checkNetworkPolicy: the policy covers every contrack pod and names only
// ports the containers have.
func checkNetworkPolicy(t *testing.T, objs []object) {
	t.Helper()
	np, ok := find[*networkingv1.NetworkPolicy](objs, "contrack")
	if !ok {
		t.Fatal("no NetworkPolicy contrack")
	}
	ports := map[string]bool{}
	for _, o := range objs {
		d, ok := o.Obj.(*appsv1.Deployment)
		if !ok {
			continue
		}
		if !selects(np.Spec.PodSelector.MatchLabels, d.Spec.Template.Labels) {
			t.Errorf("NetworkPolicy does not cover %s", d.Name)
		}
		for _, p := range d.Spec.Template.Spec.Containers[0].Ports {
			ports[p.Name] = true
		}
	}
	httpRules := 0
	for _, rule := range np.Spec.Ingress {
		for _, p := range rule.Ports {
			if p.Port == nil || !ports[p.Port.String()] {
				t.Errorf("NetworkPolicy admits port %v, which no container names", p.Port)
			}
			if p.Port == nil || p.Port.String() != "http" {
				continue
			}
			// The API believes X-Real-IP from its peers: only the ingress
			// controller's pods may be one.
			httpRules++
			if len(rule.From) == 0 {
				t.Errorf("NetworkPolicy admits anyone to the API port")
			}
			for _, from := range rule.From {
				if from.IPBlock != nil || from.NamespaceSelector == nil || len(from.NamespaceSelector.MatchLabels) == 0 ||
					from.PodSelector == nil || len(from.PodSelector.MatchLabels) == 0 {
					t.Errorf("NetworkPolicy admits %+v to the API port: want the ingress controller's pods in its namespace", from)
				}
			}
		}
	}
	if httpRules == 0 {
		t.Errorf("NetworkPolicy admits nobody to the API port")
	}
}

// containerEnv is what the container sees: envFrom the ConfigMap and
// Secret, then env, which wins.
func containerEnv(t *testing.T, c corev1.Container, cm *corev1.ConfigMap, secret *corev1.Secret) map[string]string {
	t.Helper()
	env := map[string]string{}
	for _, from := range c.EnvFrom {
		switch {
		case from.ConfigMapRef != nil && from.ConfigMapRef.Name == cm.Name:
			for k, v := range cm.Data {
				env[k] = v
			}
		case from.SecretRef != nil && from.SecretRef.Name == secret.Name:
			for k, v := range secret.StringData {
				env[k] = v
			}
		default:
			t.Errorf("%s: envFrom %+v names nothing in the base", c.Name, from)
		}
	}
	for _, e := range c.Env {
		env[e.Name] = e.Value
		if f := e.ValueFrom; f != nil && f.SecretKeyRef != nil {
			if f.SecretKeyRef.Optional != nil && *f.SecretKeyRef.Optional {
				t.Errorf("%s: %s from an optional Secret", c.Name, e.Name)
			}
			env[e.Name] = "secretKeyRef:" + f.SecretKeyRef.Name + "/" + f.SecretKeyRef.Key
		}
	}
	return env
}

// secretKeySecret is the Secret holding CONTRACK_SECRET_KEY, created out of
// band (docs/operations.md); no manifest defines it.
const secretKeySecret = "contrack-secret-key"

// portNames are the container ports' names for the listeners of the role
// table.
var portNames = map[string]string{roles.ListenAdmin: "admin", roles.ListenHTTP: "http", roles.ListenSandbox: "sandbox"}

// checkPorts: the container names a port for the listener the role is
// probed on and for the public API if it serves it, each the one the
// configuration listens on.
func checkPorts(t *testing.T, r roles.Role, c corev1.Container, env map[string]string) {
	t.Helper()
	role := r.Name
	want := map[string]string{portNames[r.Probe]: r.Probe}
	if r.Listens(roles.ListenHTTP) {
		want[portNames[roles.ListenHTTP]] = roles.ListenHTTP
	}
	got := map[string]int32{}
	for _, p := range c.Ports {
		got[p.Name] = p.ContainerPort
	}
	if len(got) != len(want) {
		t.Errorf("%s: ports %v, want %v", role, got, want)
	}
	for name, v := range want {
		if port := addrPort(t, role+" "+v, env[v]); got[name] != int32(port) {
			t.Errorf("%s: port %s is %d, %s=%s", role, name, got[name], v, env[v])
		}
	}
}

// checkProbes: liveness /healthz and readiness /readyz on the admin
// listener; a role probed elsewhere (the sandbox carriers, which have no
// health path) gets TCP probes on that port.
func checkProbes(t *testing.T, r roles.Role, c corev1.Container) {
	t.Helper()
	role := r.Name
	live, ready := c.LivenessProbe, c.ReadinessProbe
	if live == nil || ready == nil {
		t.Errorf("%s: liveness %v readiness %v", role, live, ready)
		return
	}
	if r.Probe != roles.ListenAdmin {
		port := intstr.FromString(portNames[r.Probe])
		if live.TCPSocket == nil || ready.TCPSocket == nil || live.TCPSocket.Port != port || ready.TCPSocket.Port != port {
			t.Errorf("%s: want TCP probes on port %s", role, port.String())
		}
		return
	}
	for _, p := range []struct {
		what  string
		probe *corev1.Probe
		path  string
	}{{"liveness", live, "/healthz"}, {"readiness", ready, "/readyz"}, {"startup", c.StartupProbe, "/healthz"}} {
		if p.probe == nil || p.probe.HTTPGet == nil {
			t.Errorf("%s: no HTTP %s probe", role, p.what)
			continue
		}
		if p.probe.HTTPGet.Path != p.path || p.probe.HTTPGet.Port != intstr.FromString("admin") {
			t.Errorf("%s: %s probe %s on %s, want %s on admin", role, p.what, p.probe.HTTPGet.Path, p.probe.HTTPGet.Port.String(), p.path)
		}
	}
}

// checkReplicas: a role of several replicas has them (or an HPA keeping at
// least two); a role of one process at a time has one, replaced rather
// than rolled (strategy Recreate), so two never run at once.
func checkReplicas(t *testing.T, r roles.Role, d *appsv1.Deployment, objs []object) {
	t.Helper()
	if h, ok := find[*autoscalingv2.HorizontalPodAutoscaler](objs, d.Name); ok {
		if r.Replicas < 2 || h.Spec.MinReplicas == nil || *h.Spec.MinReplicas < int32(r.Replicas) {
			t.Errorf("%s: scaled by an HPA from %v, the role table says %d replicas", r.Name, h.Spec.MinReplicas, r.Replicas)
		}
		return
	}
	if d.Spec.Replicas == nil || *d.Spec.Replicas != int32(r.Replicas) {
		t.Errorf("%s: replicas %s, the role table says %d", r.Name, replicasText(d.Spec.Replicas), r.Replicas)
	}
	if r.Replicas == 1 && d.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
		t.Errorf("%s: one process at a time, but strategy %q lets a rollout run two", r.Name, d.Spec.Strategy.Type)
	}
}

func replicasText(n *int32) string {
	if n == nil {
		return "unset"
	}
	return strconv.Itoa(int(*n))
}

// checkHardened: non-root, read-only root, no privilege escalation, every
// capability dropped, resources set, and CONTRACK_DATA_DIR on an emptyDir.
func checkHardened(t *testing.T, role string, pod corev1.PodSpec, c corev1.Container, env map[string]string) {
	t.Helper()
	sc := c.SecurityContext
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
		sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot ||
		sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) {
		t.Errorf("%s: container securityContext %+v", role, sc)
	}
	if ps := pod.SecurityContext; ps == nil || ps.RunAsUser == nil || *ps.RunAsUser == 0 || ps.RunAsNonRoot == nil || !*ps.RunAsNonRoot {
		t.Errorf("%s: pod securityContext %+v", role, pod.SecurityContext)
	}
	r := c.Resources
	if r.Requests.Cpu().IsZero() || r.Requests.Memory().IsZero() || r.Limits.Memory().IsZero() {
		t.Errorf("%s: resources %+v, want cpu and memory requests and a memory limit", role, r)
	}
	emptyDirs := map[string]bool{}
	for _, v := range pod.Volumes {
		if v.EmptyDir != nil {
			emptyDirs[v.Name] = true
		}
	}
	dd := env["CONTRACK_DATA_DIR"]
	if !slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool {
		return emptyDirs[m.Name] && strings.HasPrefix(dd, m.MountPath+"/")
	}) {
		t.Errorf("%s: CONTRACK_DATA_DIR %q is not on a mounted emptyDir", role, dd)
	}
}

// checkScaling: HPAs for api, normalize and delivery target their
// Deployments (which leave replicas to them); every Deployment has a PDB
// selecting its pods.
func checkScaling(t *testing.T, objs []object) {
	t.Helper()
	for _, role := range []string{"api", "normalize", "delivery"} {
		h, ok := find[*autoscalingv2.HorizontalPodAutoscaler](objs, "contrack-"+role)
		if !ok {
			t.Errorf("no HorizontalPodAutoscaler for %s", role)
			continue
		}
		ref := h.Spec.ScaleTargetRef
		d, ok := find[*appsv1.Deployment](objs, ref.Name)
		if !ok || ref.Kind != "Deployment" || ref.APIVersion != "apps/v1" || ref.Name != "contrack-"+role {
			t.Errorf("%s: HPA targets %+v", role, ref)
		} else if d.Spec.Replicas != nil {
			t.Errorf("%s: Deployment sets replicas, which fights its HPA", role)
		}
		if h.Spec.MinReplicas == nil || *h.Spec.MinReplicas < 2 || h.Spec.MaxReplicas < *h.Spec.MinReplicas {
			t.Errorf("%s: HPA bounds %v..%d", role, h.Spec.MinReplicas, h.Spec.MaxReplicas)
		}
	}
	for _, o := range objs {
		d, ok := o.Obj.(*appsv1.Deployment)
		if !ok {
			continue
		}
		pdb, ok := find[*policyv1.PodDisruptionBudget](objs, d.Name)
		if !ok || pdb.Spec.Selector == nil || !selects(pdb.Spec.Selector.MatchLabels, d.Spec.Template.Labels) {
			t.Errorf("%s: no PodDisruptionBudget selecting its pods", d.Name)
		}
	}
}

// checkAPIExposure: the Service selects the API pods and targets their http
// port; the Ingress routes to that Service's port; the sandbox Service is
// where CONTRACK_SANDBOX_ADDR points.
func checkAPIExposure(t *testing.T, objs []object, cm *corev1.ConfigMap) {
	t.Helper()
	d, _ := find[*appsv1.Deployment](objs, "contrack-api")
	svc, ok := find[*corev1.Service](objs, "contrack-api")
	if !ok || d == nil {
		t.Fatal("no Service contrack-api")
	}
	if !selects(svc.Spec.Selector, d.Spec.Template.Labels) {
		t.Errorf("Service contrack-api does not select the API pods")
	}
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].TargetPort != intstr.FromString("http") {
		t.Errorf("Service contrack-api ports %+v, want one targeting http", svc.Spec.Ports)
	}
	ing, ok := find[*networkingv1.Ingress](objs, "contrack-api")
	if !ok {
		t.Fatal("no Ingress contrack-api")
	}
	for _, r := range ing.Spec.Rules {
		for _, p := range r.HTTP.Paths {
			b := p.Backend.Service
			if b == nil || b.Name != svc.Name || b.Port.Name != svc.Spec.Ports[0].Name {
				t.Errorf("Ingress rule %s%s routes to %+v", r.Host, p.Path, b)
			}
		}
	}
	sb, ok := find[*corev1.Service](objs, "contrack-sandbox")
	if !ok {
		t.Fatal("no Service contrack-sandbox")
	}
	want := sb.Name + ":" + strconv.Itoa(int(sb.Spec.Ports[0].Port))
	if cm.Data["CONTRACK_SANDBOX_ADDR"] != want {
		t.Errorf("CONTRACK_SANDBOX_ADDR %q, the sandbox Service is %s", cm.Data["CONTRACK_SANDBOX_ADDR"], want)
	}
}

// selects reports whether a selector's labels all appear on the pod.
func selects(selector, labels map[string]string) bool {
	if len(selector) == 0 {
		return false
	}
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// TestK8sProductionOverlay: the overlay's patches, replicas and images all
// name what the base defines, and the placeholder Secret is dropped.
func TestK8sProductionOverlay(t *testing.T) {
	k, objs, patches := kustomize(t, "k8s/overlays/production")
	if k.Namespace == "" {
		t.Error("production overlay sets no namespace")
	}
	if _, ok := find[*corev1.Namespace](objs, k.Namespace); !ok {
		t.Errorf("production overlay does not create namespace %q", k.Namespace)
	}
	for _, p := range patches {
		if !slices.ContainsFunc(objs, func(o object) bool { return o.Kind == p.Kind && o.Name == p.Name }) {
			t.Errorf("%s: patches %s %s, which the base does not define", p.File, p.Kind, p.Name)
		}
	}
	if _, ok := find[*corev1.Secret](patches, "contrack-secrets"); !ok {
		t.Error("production overlay keeps the base's placeholder Secret")
	}
	for _, r := range k.Replicas {
		d, ok := find[*appsv1.Deployment](objs, r.Name)
		if !ok {
			t.Errorf("replicas: no Deployment %s", r.Name)
		} else if _, hpa := find[*autoscalingv2.HorizontalPodAutoscaler](objs, r.Name); hpa || d.Spec.Replicas == nil {
			t.Errorf("replicas: %s is scaled by an HPA", r.Name)
		}
		if role, ok := roles.Lookup(strings.TrimPrefix(r.Name, "contrack-")); ok && role.Replicas == 1 && r.Count != 1 {
			t.Errorf("replicas: %s runs one process at a time (cmd/contrack/roles), not %d", r.Name, r.Count)
		}
	}
	for _, img := range k.Images {
		if img.Name != "contrack" || img.NewTag == "" || img.NewTag == "latest" {
			t.Errorf("images: %+v, want contrack pinned to a version", img)
		}
	}
	for _, o := range objs {
		if d, ok := o.Obj.(*appsv1.Deployment); ok && d.Spec.Template.Spec.Containers[0].Image != "contrack" {
			t.Errorf("%s: image %q is not the one the overlays pin", d.Name, d.Spec.Template.Spec.Containers[0].Image)
		}
	}
}
