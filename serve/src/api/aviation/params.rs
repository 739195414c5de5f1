//! The Aviation group's query parameters. The video parameters take any string: a malformed id
//! is answered 200 with `error: invalid_video_id` (SUPPLEMENT 2.1.9), not refused.

use crate::api::params::{Param, ParamKind};

pub const VIDEO_ID: Param = Param {
    name: "video_id",
    kind: ParamKind::Text { max_bytes: None },
    required: false,
    description: "YouTube video id (11 characters of [A-Za-z0-9_-]).",
};

pub const CHANNEL: Param = Param {
    name: "channel",
    kind: ParamKind::Text { max_bytes: None },
    required: false,
    description: "Deprecated: live detection by channel is retired; a query with only a channel answers `channel_live_detection_retired`.",
};

pub const VIDEO_LIVE_STREAM_INFO: &[Param] = &[VIDEO_ID, CHANNEL];
