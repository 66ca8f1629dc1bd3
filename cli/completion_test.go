package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestCompletionScripts(t *testing.T) {
	tests := []struct {
		shell string
		want  []string
	}{
		{"bash", []string{"__start_kvtier", "complete -o default -F __start_kvtier kvtier"}},
		{"zsh", []string{"#compdef kvtier", "compdef _kvtier kvtier"}},
		{"fish", []string{"complete -c kvtier", "__kvtier_perform_completion"}},
	}
	for _, tt := range tests {
		t.Run(tt.shell, func(t *testing.T) {
			code, out, errs := runCLI("completion", tt.shell)
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, errs)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("%s completion lacks %q", tt.shell, w)
				}
			}
			// Check the syntax with the shell itself where it is installed.
			sh, err := exec.LookPath(tt.shell)
			if err != nil {
				t.Logf("%s is not installed: syntax not checked", tt.shell)
				return
			}
			path := filepath.Join(t.TempDir(), "kvtier."+tt.shell)
			if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(sh, "-n", path).CombinedOutput(); err != nil {
				t.Errorf("%s -n: %v\n%s", tt.shell, err, out)
			}
		})
	}
	for _, args := range [][]string{{"completion", "tcsh"}, {"completion"}, {"completion", "bash", "zsh"}} {
		if code, _, _ := runCLI(args...); code != ExitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, ExitUsage)
		}
	}
	code, out, errs := runCLI("completion", "fish", "--json")
	if code != ExitOK {
		t.Fatalf("completion --json: exit %d: %s", code, errs)
	}
	var cj completionJSON
	decodeStrict(t, out, &cj, "shell", "install_path", "script")
	if cj.Shell != "fish" || !strings.Contains(cj.Script, "complete -c kvtier") || cj.InstallPath == "" {
		t.Errorf("completion --json = %+v", cj)
	}
}

// TestCompletionCandidates asks the completion engine what the shells ask.
func TestCompletionCandidates(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"__complete", "st"}, []string{"status"}},
		{[]string{"__complete", ""}, []string{"status", "regions", "placement", "top", "events", "daemon", "completion"}},
		{[]string{"__complete", "events", "--type", ""}, eventTypes},
		{[]string{"__complete", "placement", "--"}, []string{"--pid", "--region", "--range", "--socket", "--json", "--width"}},
		{[]string{"__complete", "top", "--"}, []string{"--interval", "--count", "--rows", "--socket", "--json"}},
	}
	for _, tt := range tests {
		code, out, errs := runCLI(tt.args...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d: %s", tt.args, code, errs)
		}
		got := map[string]bool{}
		for _, line := range strings.Split(out, "\n") {
			got[strings.SplitN(line, "\t", 2)[0]] = true
		}
		for _, w := range tt.want {
			if !got[w] {
				t.Errorf("%v: no candidate %q in\n%s", tt.args, w, out)
			}
		}
	}
}

// TestBashCompletion sources the bash script and completes a word the way
// bash does when the user presses tab, with the built binary on PATH.
func TestBashCompletion(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	const bashCompletion = "/usr/share/bash-completion/bash_completion"
	if _, err := os.Stat(bashCompletion); err != nil {
		t.Skip("the bash-completion package is not installed (cobra's bash script needs it): apt-get install bash-completion")
	}
	bin := kvtierBinary(t)
	code, script, _ := runCLI("completion", "bash")
	if code != ExitOK {
		t.Fatal("completion bash failed")
	}
	path := filepath.Join(t.TempDir(), "kvtier.bash")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		line string
		want string
	}{
		{"kvtier reg", "regions"},
		{"kvtier events --type cross", "cross_tenant_eviction"},
		{"kvtier placement --reg", "--region"},
	}
	for _, tt := range tests {
		words := strings.Fields(tt.line)
		prog := "source " + bashCompletion + "\nsource " + path + "\n" +
			"COMP_WORDS=(" + tt.line + "); COMP_CWORD=" + itoa(len(words)-1) + "\n" +
			"COMP_LINE='" + tt.line + "'; COMP_POINT=${#COMP_LINE}\n" +
			"__start_kvtier kvtier '" + words[len(words)-1] + "' '" + words[len(words)-2] + "'\n" +
			"printf '%s\\n' \"${COMPREPLY[@]}\"\n"
		cmd := exec.Command(bash, "--norc", "--noprofile", "-c", prog)
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+":"+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("%q: %v\n%s", tt.line, err, out)
			continue
		}
		if !strings.Contains(string(out), tt.want) {
			t.Errorf("completing %q gave %q, want %q among them", tt.line, out, tt.want)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
