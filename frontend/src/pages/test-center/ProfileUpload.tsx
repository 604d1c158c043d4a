/** Drag-and-drop upload of profile YAML files; each is stored, valid or not, and the outcome is announced. */
import { notifications } from "@mantine/notifications";
import { ApiError } from "../../api/errors";
import { useUploadProfiles } from "../../api/workspace/profiles";
import { FileDropZone } from "../../components/FileDropZone";
import { counted } from "../../lib/text";

const EXTENSIONS = [".yaml", ".yml"];
const MAX_FILE_BYTES = 1024 * 1024;

export function ProfileUpload({ projectId }: { projectId: number }) {
  const upload = useUploadProfiles();
  return (
    <FileDropZone
      extensions={EXTENSIONS}
      maxBytes={MAX_FILE_BYTES}
      buttonLabel="Upload profile files"
      hint="YAML files up to 1 MB each. Every file is validated and kept; invalid ones can be fixed in the editor."
      loading={upload.isPending}
      onReject={(messages) => {
        notifications.show({ color: "red", title: "Some files were not uploaded", message: messages.join("; ") });
      }}
      onFiles={(files) => {
        upload.mutate(
          { projectId, files },
          {
            onSuccess: (stored) => {
              const invalid = stored.filter((doc) => !doc.valid).length;
              notifications.show({
                color: invalid > 0 ? "yellow" : "green",
                title: `${counted(stored.length, "profile")} uploaded`,
                message:
                  invalid > 0
                    ? `${String(invalid)} with errors: open them to fix before running.`
                    : "All valid and ready to run.",
              });
            },
            onError: (error) => {
              notifications.show({
                color: "red",
                title: "Upload failed",
                message: error instanceof ApiError ? error.detail : "Something went wrong.",
              });
            },
          },
        );
      }}
    />
  );
}
