package install

import (
	"errors"

	"github.com/ccmem/ccmem/internal/service/settings"
	"github.com/ccmem/ccmem/pkg/claudecode"
)

// ErrPluginEnabled is returned by Install when the ccmem plugin is enabled:
// its hooks would run twice.
var ErrPluginEnabled = errors.New("the ccmem plugin (" + claudecode.PluginID + ") is enabled in these settings and registers the same hooks; ccmem install would run each of them twice, so it changed nothing")

// PluginEnabled tells whether settings enable ccmem's plugin.
func PluginEnabled(root *settings.Value) bool {
	ep := root.Get("enabledPlugins")
	if ep == nil || ep.Kind != settings.Object {
		return false
	}
	v := ep.Get(claudecode.PluginID)
	return v != nil && v.Raw == "true"
}
