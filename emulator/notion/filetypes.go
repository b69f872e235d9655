package notion

import (
	"mime"
	"path"
	"strings"
)

// allowedTypes is Notion's allow-list of uploadable file types, by
// extension, with the MIME types accepted for each (reference §3).
var allowedTypes = map[string][]string{
	// Images.
	".gif": {"image/gif"}, ".heic": {"image/heic"}, ".jpeg": {"image/jpeg"}, ".jpg": {"image/jpeg"},
	".png": {"image/png"}, ".svg": {"image/svg+xml"}, ".tif": {"image/tiff"}, ".tiff": {"image/tiff"},
	".webp": {"image/webp"}, ".ico": {"image/vnd.microsoft.icon", "image/x-icon"},
	// Documents.
	".pdf": {"application/pdf"}, ".txt": {"text/plain"}, ".json": {"application/json"},
	".doc":  {"application/msword"},
	".dot":  {"application/msword"},
	".docx": {"application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
	".dotx": {"application/vnd.openxmlformats-officedocument.wordprocessingml.template"},
	".xls":  {"application/vnd.ms-excel"},
	".xlt":  {"application/vnd.ms-excel"},
	".xla":  {"application/vnd.ms-excel"},
	".xlsx": {"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
	".xltx": {"application/vnd.openxmlformats-officedocument.spreadsheetml.template"},
	".ppt":  {"application/vnd.ms-powerpoint"},
	".pot":  {"application/vnd.ms-powerpoint"},
	".pps":  {"application/vnd.ms-powerpoint"},
	".ppa":  {"application/vnd.ms-powerpoint"},
	".pptx": {"application/vnd.openxmlformats-officedocument.presentationml.presentation"},
	".potx": {"application/vnd.openxmlformats-officedocument.presentationml.template"},
	// Audio.
	".aac": {"audio/aac"}, ".adts": {"audio/aac"}, ".mid": {"audio/midi"}, ".midi": {"audio/midi"},
	".mp3": {"audio/mpeg"}, ".mpga": {"audio/mpeg"}, ".m4a": {"audio/mp4"}, ".m4b": {"audio/mp4"},
	".oga": {"audio/ogg"}, ".ogg": {"audio/ogg"}, ".wav": {"audio/wav", "audio/x-wav"},
	".wma": {"audio/x-ms-wma"},
	// Video.
	".amv": {"video/x-amv"}, ".asf": {"video/x-ms-asf"}, ".wmv": {"video/x-ms-wmv"},
	".avi": {"video/x-msvideo"}, ".f4v": {"video/x-f4v"}, ".flv": {"video/x-flv"},
	".gifv": {"video/mp4"}, ".m4v": {"video/mp4"}, ".mp4": {"video/mp4"}, ".mkv": {"video/webm"},
	".webm": {"video/webm"}, ".mov": {"video/quicktime"}, ".qt": {"video/quicktime"},
	".mpeg": {"video/mpeg"},
}

const supportedTypesText = "images (gif, heic, jpeg, png, svg, tif, webp, ico), pdf, txt, json, Microsoft Office documents (doc, xls, ppt and their x forms), and common audio (aac, mid, mp3, m4a, ogg, wav, wma) and video (avi, flv, mkv, mov, mp4, mpeg, webm, wmv) formats"

// mimeAllowed says whether ct (parameters ignored) is on the allow-list.
func mimeAllowed(ct string) bool {
	for _, types := range allowedTypes {
		for _, t := range types {
			if t == ct {
				return true
			}
		}
	}
	return false
}

func baseMIME(ct string) string {
	if mt, _, err := mime.ParseMediaType(ct); err == nil {
		return mt
	}
	return strings.ToLower(strings.TrimSpace(ct))
}

// resolveType checks a filename and content type against the allow-list
// and returns the content type to record. Either may be empty; when both
// are, the type is not known yet and "" is returned.
func resolveType(filename, contentType string) (string, error) {
	ext := strings.ToLower(path.Ext(filename))
	ct := baseMIME(contentType)
	if ext != "" {
		types, ok := allowedTypes[ext]
		if !ok {
			return "", validationError("The file type `%s` (file %q) is not supported for upload. Supported types are %s.", ext, filename, supportedTypesText)
		}
		if ct == "" {
			return types[0], nil
		}
		for _, t := range types {
			if t == ct {
				return ct, nil
			}
		}
		if !mimeAllowed(ct) {
			return "", validationError("The content type `%s` is not supported for upload. Supported types are %s.", ct, supportedTypesText)
		}
		return "", validationError("The content type `%s` does not match the extension `%s` of file %q.", ct, ext, filename)
	}
	if ct == "" {
		return "", nil
	}
	if !mimeAllowed(ct) {
		return "", validationError("The content type `%s` is not supported for upload. Supported types are %s.", ct, supportedTypesText)
	}
	return ct, nil
}
