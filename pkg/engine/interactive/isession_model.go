package interactive

// SetModel makes model the session's model from its next prompt on (Claude Code's
// set_model): an alias (default, sonnet, opus, haiku) resolves for the session's provider
// as --model does; a model id is used as it is. The conversation is kept. It fails while
// a prompt runs (session.ErrRunInProgress) and, with ErrInvalidConfiguration, for an
// alias the provider has no model for.
func (s *InteractiveSession) SetModel(model string) (string, error) {
	id := model
	if s.host != nil && s.host.ResolveModel != nil {
		var err error
		if id, err = s.host.ResolveModel(model); err != nil {
			return "", err
		}
	}
	if err := s.sess.SetModel(id); err != nil {
		return "", err
	}
	return id, nil
}
